//! The values of Python literals, as every reader of Python reads them.

/// Why an integer literal has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntError {
    /// Too large for the reader (beyond `i128`).
    Overflow,
    /// Not an integer literal.
    Invalid,
}

/// The value of an integer literal's text (`1_000`, `0x1F`, `0o7`, `0b1`),
/// without sign.
pub fn int(text: &str) -> Result<i128, IntError> {
    let digits: String = text
        .chars()
        .filter(|&c| c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (radix, body) = if let Some(rest) = digits.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = digits.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = digits.strip_prefix("0b") {
        (2, rest)
    } else {
        (10, digits.as_str())
    };
    i128::from_str_radix(body, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => IntError::Overflow,
        _ => IntError::Invalid,
    })
}

/// The value of an integer literal's text when it fits in an `i64`.
pub fn int_i64(text: &str) -> Option<i64> {
    int(text).ok().and_then(|v| i64::try_from(v).ok())
}

/// Interprets the escape sequences of a non-raw Python string body. Unknown
/// escapes are kept verbatim, as Python does.
pub fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '0'..='7' => {
                let mut code = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            code = code * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                let len = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut hex = String::new();
                while hex.len() < len {
                    match chars.peek() {
                        Some(d) if d.is_ascii_hexdigit() => {
                            hex.push(*d);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) if hex.len() == len => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&hex);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(int("1_000"), Ok(1000));
        assert_eq!(int("0X1f"), Ok(31));
        assert_eq!(int("0o17"), Ok(15));
        assert_eq!(int("0b101"), Ok(5));
        assert_eq!(int("1.5"), Err(IntError::Invalid));
        assert_eq!(int("9".repeat(60).as_str()), Err(IntError::Overflow));
        assert_eq!(int_i64("9223372036854775807"), Some(i64::MAX));
        assert_eq!(int_i64("9223372036854775808"), None);
        assert_eq!(int_i64("0x"), None);
    }

    #[test]
    fn strings() {
        assert_eq!(
            unescape(
                r"a\tb\\c\'\x41\u00e9\101\q\
"
            ),
            "a\tb\\c'A\u{e9}A\\q"
        );
        assert_eq!(unescape(r"\x4"), r"\x4");
        assert_eq!(unescape("end\\"), "end\\");
    }
}
