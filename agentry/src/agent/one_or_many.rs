//! [`OneOrMany`]: the items of a tool round, without a list when there is one.
//!
//! Nearly every tool round has one call. Its plan and its result are kept inline instead of
//! in a `Vec` each (two allocations and their frees per round); several are kept in a `Vec`.

/// One item inline, or several in a `Vec`, read in order as an iterator.
pub(crate) enum OneOrMany<T> {
    /// One item (`None` once it is taken).
    One(Option<T>),
    /// Several, in order.
    Many(std::vec::IntoIter<T>),
}

impl<T> OneOrMany<T> {
    /// The items of `iter`, inline when it has exactly one.
    pub(crate) fn new<I: ExactSizeIterator<Item = T>>(mut iter: I) -> Self {
        if iter.len() == 1 {
            OneOrMany::One(iter.next())
        } else {
            OneOrMany::Many(iter.collect::<Vec<_>>().into_iter())
        }
    }

    /// The items not yet taken.
    pub(crate) fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(one) => one.as_slice(),
            OneOrMany::Many(many) => many.as_slice(),
        }
    }

    /// The items not yet taken, to change in place.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            OneOrMany::One(one) => one.as_mut_slice(),
            OneOrMany::Many(many) => many.as_mut_slice(),
        }
    }
}

impl<T> Iterator for OneOrMany<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            OneOrMany::One(one) => one.take(),
            OneOrMany::Many(many) => many.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.as_slice().len();
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for OneOrMany<T> {}

#[cfg(test)]
mod tests {
    use super::OneOrMany;

    #[test]
    fn one_item_is_kept_inline_and_read_once() {
        let mut one = OneOrMany::new(std::iter::once(7));
        assert!(matches!(one, OneOrMany::One(Some(7))));
        assert_eq!(one.as_slice(), &[7]);
        one.as_mut_slice()[0] = 8;
        assert_eq!((one.len(), one.next(), one.next()), (1, Some(8), None));
        assert!(one.as_slice().is_empty());
    }

    #[test]
    fn several_or_none_are_read_in_order() {
        let mut many = OneOrMany::new([1, 2, 3].into_iter());
        assert_eq!(many.as_slice(), &[1, 2, 3]);
        assert_eq!(many.next(), Some(1));
        assert_eq!(many.as_slice(), &[2, 3]);
        assert_eq!(many.collect::<Vec<_>>(), [2, 3]);
        let mut none = OneOrMany::new(std::iter::empty::<u8>());
        assert_eq!((none.as_slice().len(), none.next()), (0, None));
    }
}
