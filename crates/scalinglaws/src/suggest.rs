//! "Did you mean ...?" suggestions for misspelled names (columns, laws, parameters), so that an
//! error can point at the name the user most likely meant.

/// The candidate closest to `name` by case-insensitive Levenshtein distance, if it is close
/// enough to be a plausible typo: distance at most `max(2, len / 3)`, where `len` is the number
/// of characters in `name`. On a tie the candidate that comes first wins.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let wanted: Vec<char> = lowercase_chars(name);
    // A third of the name may change (at least two edits), but never all of it: "x" is not a
    // misspelling of "N".
    let limit = (wanted.len() / 3)
        .max(2)
        .min(wanted.len().saturating_sub(1));
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = levenshtein(&wanted, &lowercase_chars(candidate));
        let is_better = match best {
            None => true,
            Some((best_distance, _)) => distance < best_distance,
        };
        if distance <= limit && is_better {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate.to_string())
}

fn lowercase_chars(text: &str) -> Vec<char> {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// Edit distance (insertions, deletions, substitutions) between two character sequences.
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for (i, &char_a) in a.iter().enumerate() {
        current[0] = i + 1;
        for (j, &char_b) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(char_a != char_b);
            let deletion = previous[j + 1] + 1;
            let insertion = current[j] + 1;
            current[j + 1] = substitution.min(deletion).min(insertion);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(text: &str) -> Vec<char> {
        text.chars().collect()
    }

    #[test]
    fn levenshtein_counts_edits() {
        assert_eq!(levenshtein(&chars(""), &chars("")), 0);
        assert_eq!(levenshtein(&chars("abc"), &chars("")), 3);
        assert_eq!(levenshtein(&chars(""), &chars("ab")), 2);
        assert_eq!(levenshtein(&chars("kitten"), &chars("sitting")), 3);
        assert_eq!(levenshtein(&chars("loss"), &chars("lss")), 1);
        assert_eq!(levenshtein(&chars("flaw"), &chars("lawn")), 2);
    }

    #[test]
    fn finds_a_close_typo() {
        let columns = ["N", "D", "loss", "model_size"];
        assert_eq!(closest("lss", columns), Some("loss".to_string()));
        assert_eq!(
            closest("modelsize", columns),
            Some("model_size".to_string())
        );
    }

    #[test]
    fn ignores_case() {
        assert_eq!(closest("LOSS", ["loss", "N"]), Some("loss".to_string()));
        assert_eq!(
            closest("chinchila", ["Chinchilla"]),
            Some("Chinchilla".to_string())
        );
    }

    #[test]
    fn rejects_names_that_are_too_far() {
        assert_eq!(closest("tokens", ["N", "loss"]), None);
        assert_eq!(closest("abc", ["xyz"]), None);
        assert_eq!(closest("x", std::iter::empty()), None);
        assert_eq!(closest("x", ["N", "D"]), None);
        assert_eq!(closest("ab", ["xy"]), None);
    }

    #[test]
    fn limit_grows_with_the_name() {
        // 12 characters: up to 4 edits allowed.
        assert_eq!(
            closest("parameterzzz", ["parameter"]),
            Some("parameter".to_string())
        );
        // 6 characters: only 2 edits allowed.
        assert_eq!(closest("abcdef", ["abcxyz"]), None);
        assert_eq!(closest("abcdef", ["abcdxy"]), Some("abcdxy".to_string()));
    }

    #[test]
    fn ties_go_to_the_first_candidate() {
        assert_eq!(closest("cat", ["bat", "hat"]), Some("bat".to_string()));
        assert_eq!(closest("cat", ["hat", "bat"]), Some("hat".to_string()));
        assert_eq!(closest("cat", ["hat", "cat"]), Some("cat".to_string()));
    }

    #[test]
    fn handles_non_ascii() {
        assert_eq!(closest("größe", ["GRÖSSE"]), Some("GRÖSSE".to_string()));
        assert_eq!(closest("größe", ["x", "gröse"]), Some("gröse".to_string()));
    }
}
