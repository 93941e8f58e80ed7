//! Escapes in the strings [`PartialJson`] reads: `\n` and the like, and `\uXXXX`, with UTF-16
//! surrogate pairs joined and lone surrogates refused.

use super::{Escape, PartialError, PartialJson};

impl PartialJson {
    pub(super) fn no_surrogate(&self, at: usize) -> Result<(), PartialError> {
        match self.high_surrogate {
            Some(_) => Err(self.error(at, "lone leading surrogate in hex escape")),
            None => Ok(()),
        }
    }

    pub(super) fn escape_byte(&mut self, b: u8, at: usize) -> Result<(), PartialError> {
        match self.escape {
            Escape::Backslash => {
                let c = match b {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        self.escape = Escape::Unicode { digits: 0, code: 0 };
                        return Ok(());
                    }
                    _ => return Err(self.error(at, "invalid escape")),
                };
                self.no_surrogate(at)?;
                self.escape = Escape::None;
                self.push_char(c);
            }
            Escape::Unicode { digits, code } => {
                let digit = (b as char)
                    .to_digit(16)
                    .ok_or_else(|| self.error(at, "invalid \\u escape"))?;
                let code = (code << 4) | digit as u16;
                if digits < 3 {
                    self.escape = Escape::Unicode {
                        digits: digits + 1,
                        code,
                    };
                    return Ok(());
                }
                self.escape = Escape::None;
                match (self.high_surrogate.take(), code) {
                    (None, 0xD800..=0xDBFF) => self.high_surrogate = Some(code),
                    (None, 0xDC00..=0xDFFF) => {
                        return Err(self.error(at, "lone trailing surrogate in hex escape"));
                    }
                    (None, code) => {
                        let c = char::from_u32(code as u32)
                            .ok_or_else(|| self.error(at, "invalid \\u escape"))?;
                        self.push_char(c);
                    }
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let c = 0x10000 + (((high as u32) - 0xD800) << 10) + (code as u32 - 0xDC00);
                        let c = char::from_u32(c)
                            .ok_or_else(|| self.error(at, "invalid surrogate pair"))?;
                        self.push_char(c);
                    }
                    (Some(_), _) => {
                        return Err(self.error(at, "lone leading surrogate in hex escape"));
                    }
                }
            }
            Escape::None => {}
        }
        Ok(())
    }
}
