//! What kind of answer an input got, as a number: the driver keeps a mutated input in its
//! corpus when it reaches an answer no earlier input reached (a new error message, or success
//! on a new path), a cheap stand-in for coverage feedback on stable Rust. The message's
//! numbers and quoted text are blanked first, so `row 3` and `row 4` are one kind of answer.

use scalinglaws::Error;

/// A 64-bit summary of an outcome (FNV-1a over its parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Signature(pub u64);

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Signature {
    /// The signature of a bare tag (a step that succeeded).
    pub fn tag(tag: &str) -> Signature {
        Signature(FNV_OFFSET).mix(tag.as_bytes())
    }

    /// This signature with more bytes folded in.
    pub fn mix(self, bytes: &[u8]) -> Signature {
        let mut hash = self.0;
        for byte in bytes {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(FNV_PRIME);
        }
        Signature(hash)
    }

    /// This signature combined with another (order matters).
    pub fn then(self, other: Signature) -> Signature {
        self.mix(&other.0.to_le_bytes())
    }

    /// The signature of a library error: its message as a user reads it, with numbers and
    /// quoted text blanked. Wording the message is part of the test (it must not panic).
    pub fn of_error(step: &str, error: &Error) -> Signature {
        let words = error.worded(&scalinglaws::error::Neutral);
        Signature::tag(step).mix(shape(&words).as_bytes())
    }

    /// Success or the error's signature, tagged with the step.
    pub fn of_result<T>(step: &str, result: &Result<T, Error>) -> Signature {
        match result {
            Ok(_) => Signature::tag(step),
            Err(error) => Signature::of_error(step, error),
        }
    }
}

/// The message with digits dropped and quoted text replaced by `''`, cut to 80 characters.
fn shape(message: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in message.chars() {
        match c {
            '\'' | '"' => {
                if !quoted {
                    out.push('\'');
                }
                quoted = !quoted;
            }
            _ if quoted || c.is_ascii_digit() => {}
            _ => out.push(c),
        }
        if out.chars().count() >= 80 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_quotes_do_not_change_the_shape() {
        assert_eq!(shape("row 3: 'abc' is bad"), shape("row 41: 'x' is bad"));
        assert_ne!(shape("row 3: bad"), shape("row 3: worse"));
    }
}
