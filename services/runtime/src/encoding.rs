//! Lower-case hex, as digests, commitments, seeds and keys are written in the log and in KV.

/// Lower-case hex of `bytes`, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 32 bytes from 64 hex digits; `None` for anything else.
pub fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    let bytes: Vec<u8> = (0..64).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect::<Option<_>>()?;
    bytes.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_32_bytes_and_refuses_the_rest() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 7) as u8);
        assert_eq!(hex(&[0x00, 0x0f, 0xab]), "000fab");
        assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        assert_eq!(unhex("ab"), None);
        assert_eq!(unhex(&"zz".repeat(32)), None);
        assert_eq!(unhex(&"é".repeat(32)), None);
    }
}
