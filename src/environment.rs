//! oneDNN's environment variables: the settings a oneDNN program makes through its environment
//! (`ONEDNN_MAX_CPU_ISA`, `ONEDNN_DEFAULT_FPMATH_MODE`, ...) reach this library as they reach
//! oneDNN. Each setting reads its variable once, when first used; the C API's setters override
//! it, as in oneDNN.

/// Prefixes of oneDNN's variables, in the order it looks for them (`DNNL_`: the older spelling).
const PREFIXES: [&str; 2] = ["ONEDNN_", "DNNL_"];

/// Longest value oneDNN reads of a numeric variable (the digits of the longest 32-bit integer
/// and its sign): a longer one is skipped, as if unset.
const INT_MAX_CHARS: usize = 11;

/// The value of oneDNN's variable `ONEDNN_<name>`, else of `DNNL_<name>`; `None` when neither
/// is set to a non-empty value.
pub fn onednn(name: &str) -> Option<String> {
    values(name).find(|v| !v.is_empty())
}

/// What `value` names among `names` (any case, as oneDNN matches the names of values).
pub fn named<T: Copy>(value: Option<String>, names: &[(&str, T)]) -> Option<T> {
    let value = value?;
    names
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(&value))
        .map(|&(_, t)| t)
}

/// The value of oneDNN's numeric variable `ONEDNN_<name>`, else of `DNNL_<name>`, as oneDNN
/// reads it: the first set to 1 to 11 characters (a longer value is skipped), read as C's
/// `atoi` reads it.
pub fn onednn_int(name: &str) -> Option<i32> {
    values(name)
        .find(|v| (1..=INT_MAX_CHARS).contains(&v.len()))
        .map(|v| atoi(&v))
}

/// The values of `name`'s variables that are set, in oneDNN's order.
fn values(name: &str) -> impl Iterator<Item = String> + '_ {
    PREFIXES
        .iter()
        .filter_map(move |prefix| std::env::var(format!("{prefix}{name}")).ok())
}

/// `s` read as C's `atoi` reads it: leading white space, a sign, then the digits up to the
/// first other character (none: 0); the value truncated to 32 bits (what `atoi` returns for
/// an 11-digit number).
fn atoi(s: &str) -> i32 {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |v, d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    (if negative { -magnitude } else { magnitude }) as i32
}

#[cfg(test)]
mod tests {
    use super::atoi;

    /// The values oneDNN 3.13 reports for these capacities.
    #[test]
    fn atoi_reads_as_c_does() {
        assert_eq!(atoi("7"), 7);
        assert_eq!(atoi("  -3"), -3);
        assert_eq!(atoi("+12abc"), 12);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("-"), 0);
        assert_eq!(atoi("99999999999"), 1_215_752_191);
        assert_eq!(atoi("12345678901"), -539_222_987);
        assert_eq!(atoi("-1234567890"), -1_234_567_890);
    }
}
