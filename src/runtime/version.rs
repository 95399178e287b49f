//! Dotted versions as the runtime tables write them: CUDA `12.4`, drivers
//! `550.54.15`, PyTorch `2.3.0a0+40ec155e58` (only the leading numbers
//! count), compute capabilities `9.0`. Compared component by component,
//! a missing component read as 0 (`580` is the whole R580 branch).

use std::cmp::Ordering;
use std::fmt;

/// Most components kept; later ones are ignored.
const MAX_PARTS: usize = 4;

#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Version {
    parts: [u32; MAX_PARTS],
    len: u8,
    /// Digits of each component as written (`05` in `535.104.05`), for
    /// display; comparisons ignore them.
    widths: [u8; MAX_PARTS],
}

impl Version {
    /// Reads the leading dotted numbers of `text` (`R535` and `v12.4` are
    /// read without their letter); `None` when it starts with no number.
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.trim();
        let text = text.strip_prefix(['R', 'r', 'v', 'V']).unwrap_or(text);
        let mut v = Version::default();
        for part in text.split('.') {
            let digits: &str = &part[..part.bytes().take_while(u8::is_ascii_digit).count()];
            let Ok(n) = digits.parse::<u32>() else { break };
            if usize::from(v.len) == MAX_PARTS {
                break;
            }
            v.parts[usize::from(v.len)] = n;
            v.widths[usize::from(v.len)] = u8::try_from(digits.len()).unwrap_or(u8::MAX);
            v.len += 1;
            // `0a0+40ec` ends the number here.
            if digits.len() != part.len() {
                break;
            }
        }
        (v.len > 0).then_some(v)
    }

    /// `major.minor` of a version.
    pub fn new(major: u32, minor: u32) -> Version {
        Version {
            parts: [major, minor, 0, 0],
            len: 2,
            widths: [0; MAX_PARTS],
        }
    }

    pub fn major(&self) -> u32 {
        self.parts[0]
    }

    pub fn minor(&self) -> u32 {
        self.parts[1]
    }

    /// The first two components.
    pub fn major_minor(&self) -> Version {
        Version::new(self.major(), self.minor())
    }

    /// Components as written.
    pub fn parts(&self) -> &[u32] {
        &self.parts[..usize::from(self.len)]
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.parts.cmp(&other.parts)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .parts()
            .iter()
            .zip(self.widths)
            .map(|(p, w)| format!("{p:0width$}", width = usize::from(w)))
            .collect();
        f.write_str(&parts.join("."))
    }
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_orders_like_the_tables() {
        let v = |s: &str| Version::parse(s).unwrap_or_default();
        assert_eq!(v("550.54.15").parts(), [550, 54, 15]);
        assert_eq!(v("2.3.0a0+40ec155e58").parts(), [2, 3, 0]);
        assert_eq!(v("12.4.0.041").parts(), [12, 4, 0, 41]);
        assert_eq!(v("R535").parts(), [535]);
        assert_eq!(Version::parse("abc"), None);
        assert_eq!(Version::parse(""), None);
        assert!(v("580") < v("580.65.06"));
        assert!(v("580") == v("580.0"));
        assert!(v("11.10") > v("11.9"));
        assert!(v("2.10") > v("2.9"));
        assert_eq!(v("12.4.1").major_minor(), v("12.4"));
        assert_eq!(v("99999999999999").parts(), [] as [u32; 0]);
        assert_eq!(v("1.13").to_string(), "1.13");
        assert_eq!(v("535.104.05").to_string(), "535.104.05");
        assert_eq!(v("12.4.0.041").to_string(), "12.4.0.041");
        assert_eq!(v("535.104.05"), v("535.104.5"));
    }
}
