//! The mutator: from a corpus entry to a new input, by a seeded random choice of byte-level
//! edits (flips, inserts, deletes, repeats, splices with another entry) and edits that know
//! the inputs are text (a number replaced by an extreme value — 1e400, -0, NaN, 2^64 −1 —,
//! a token from the target's dictionary inserted, a span wrapped in thousands of parentheses
//! or JSON brackets, a line repeated). The same seed and corpus give the same inputs.

use scalinglaws::rng::Rng;

/// Inputs are cut to this length (a long input is slow, not more interesting).
pub const MAX_INPUT: usize = 128 * 1024;

/// Numbers that break naive code.
const EXTREMES: [&str; 22] = [
    "1e400",
    "-1e400",
    "1e-400",
    "-0",
    "0",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "18446744073709551615",
    "18446744073709551616",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e11",
    "1e308",
    "2.2250738585072014e-308",
    "5e-324",
    "-1",
    "0x10",
    "1_000",
];

/// Bytes and words worth inserting into any text input.
const GENERIC: [&str; 16] = [
    "\n", "\r\n", "\t", " ", "\"", "'", ",", ";", "=", "(", ")", "\u{FEFF}", "é", "\u{0}", "\\",
    "-",
];

pub struct Mutator {
    rng: Rng,
    dictionary: &'static [&'static str],
}

impl Mutator {
    pub fn new(seed: u64, dictionary: &'static [&'static str]) -> Mutator {
        Mutator {
            rng: Rng::new(seed),
            dictionary,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.rng.below(n)
        }
    }

    /// A seeded index in 0..n (0 when n is 0): which corpus entry to mutate next.
    pub fn pick(&mut self, n: usize) -> usize {
        self.below(n)
    }

    /// A new input from `base`, with one to four edits; `other` is another corpus entry for
    /// splices.
    pub fn mutate(&mut self, base: &[u8], other: &[u8]) -> Vec<u8> {
        let mut input = base.to_vec();
        let edits = 1 + self.below(4);
        for _ in 0..edits {
            self.edit(&mut input, other);
        }
        input.truncate(MAX_INPUT);
        input
    }

    fn edit(&mut self, input: &mut Vec<u8>, other: &[u8]) {
        match self.below(12) {
            0 => self.flip_bit(input),
            1 => self.set_byte(input),
            2 | 3 => self.delete(input),
            4 => self.repeat(input),
            5 => self.splice(input, other),
            6 | 7 => self.replace_number(input),
            8 => {
                let word = self.word();
                self.insert(input, word.as_bytes());
            }
            9 => self.nest(input),
            10 => self.repeat_line(input),
            _ => {
                let word = GENERIC[self.below(GENERIC.len())];
                self.insert(input, word.as_bytes());
            }
        }
    }

    fn word(&mut self) -> String {
        if !self.dictionary.is_empty() && self.below(2) == 0 {
            self.dictionary[self.below(self.dictionary.len())].to_string()
        } else {
            EXTREMES[self.below(EXTREMES.len())].to_string()
        }
    }

    fn flip_bit(&mut self, input: &mut [u8]) {
        if !input.is_empty() {
            let at = self.below(input.len());
            input[at] ^= 1 << self.below(8);
        }
    }

    fn set_byte(&mut self, input: &mut [u8]) {
        if !input.is_empty() {
            let at = self.below(input.len());
            input[at] = self.rng.next_u64() as u8;
        }
    }

    fn insert(&mut self, input: &mut Vec<u8>, bytes: &[u8]) {
        let at = self.below(input.len() + 1);
        input.splice(at..at, bytes.iter().copied());
    }

    /// A span of up to 1/4 of the input (at least one byte) removed.
    fn delete(&mut self, input: &mut Vec<u8>) {
        if input.is_empty() {
            return;
        }
        let start = self.below(input.len());
        let len = 1 + self.below((input.len() - start).min(input.len() / 4 + 1));
        input.drain(start..start + len);
    }

    /// A short span repeated up to thousands of times in place.
    fn repeat(&mut self, input: &mut Vec<u8>) {
        if input.is_empty() {
            return;
        }
        let start = self.below(input.len());
        let len = 1 + self.below((input.len() - start).min(16));
        let times = [2, 10, 100, 1000, 10_000][self.below(5)];
        let span = input[start..start + len].to_vec();
        let copies = span.repeat(times.min(MAX_INPUT / len));
        input.splice(start..start, copies);
    }

    /// The input's start followed by the other entry's end.
    fn splice(&mut self, input: &mut Vec<u8>, other: &[u8]) {
        let keep = self.below(input.len() + 1);
        let from = self.below(other.len() + 1);
        input.truncate(keep);
        input.extend_from_slice(&other[from..]);
    }

    /// A number (digits with signs, dots and exponents) replaced by an extreme one.
    fn replace_number(&mut self, input: &mut Vec<u8>) {
        let starts: Vec<usize> = (0..input.len())
            .filter(|&i| input[i].is_ascii_digit() && (i == 0 || !is_number_byte(input[i - 1])))
            .collect();
        if starts.is_empty() {
            let word = EXTREMES[self.below(EXTREMES.len())];
            self.insert(input, word.as_bytes());
            return;
        }
        let start = starts[self.below(starts.len())];
        let end = (start..input.len())
            .find(|&i| !is_number_byte(input[i]))
            .unwrap_or(input.len());
        let word = EXTREMES[self.below(EXTREMES.len())];
        input.splice(start..end, word.bytes());
    }

    /// A span wrapped in many opening and closing brackets of one kind.
    fn nest(&mut self, input: &mut Vec<u8>) {
        let (open, close): (&[u8], &[u8]) = match self.below(4) {
            0 => (b"(", b")"),
            1 => (b"[", b"]"),
            2 => (b"{\"a\":", b"}"),
            _ => (b"-(", b")"),
        };
        let depth = [8, 200, 5000, 50_000][self.below(4)];
        let depth = depth.min(MAX_INPUT / (open.len() + close.len()) / 2);
        let start = self.below(input.len() + 1);
        let end = start + self.below(input.len() - start + 1);
        let mut out = input[..start].to_vec();
        out.extend(open.repeat(depth));
        out.extend_from_slice(&input[start..end]);
        out.extend(close.repeat(depth));
        out.extend_from_slice(&input[end..]);
        *input = out;
    }

    /// One line repeated (many rows, many specs, many steps).
    fn repeat_line(&mut self, input: &mut Vec<u8>) {
        let breaks: Vec<usize> = (0..input.len()).filter(|&i| input[i] == b'\n').collect();
        if breaks.is_empty() {
            return self.repeat(input);
        }
        let at = self.below(breaks.len());
        let start = if at == 0 { 0 } else { breaks[at - 1] + 1 };
        let line = input[start..=breaks[at]].to_vec();
        let times = [2, 50, 1000][self.below(3)].min(MAX_INPUT / line.len().max(1));
        input.splice(start..start, line.repeat(times));
    }
}

fn is_number_byte(byte: u8) -> bool {
    byte.is_ascii_digit() || matches!(byte, b'.' | b'e' | b'E' | b'+' | b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_inputs() {
        let run = |seed| {
            let mut mutator = Mutator::new(seed, &["x"]);
            (0..200)
                .map(|_| mutator.mutate(b"E + A*N^-0.34\n1,2,3", b"other 12"))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn inputs_stay_under_the_length_limit() {
        let mut mutator = Mutator::new(1, &[]);
        let mut input = b"1".to_vec();
        for _ in 0..300 {
            input = mutator.mutate(&input, b"2,3\n4");
            assert!(input.len() <= MAX_INPUT);
        }
    }
}
