//! [`Cost`]: an amount of money, exact.

use std::fmt;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// An amount of money in billionths of the price table's currency (nano-dollars with USD
/// prices): exact, totally ordered and summed without rounding drift, so it can be a run
/// limit and part of a snapshot.
///
/// ```
/// use agentry::cost::Cost;
/// let a = Cost::from_usd(0.25);
/// assert_eq!(a.nanos(), 250_000_000);
/// assert_eq!((a + a).as_usd(), 0.5);
/// assert!(Cost::from_usd(0.1) < a);
/// ```
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Cost {
    nanos: u64,
}

impl Cost {
    /// Nothing.
    pub const ZERO: Cost = Cost { nanos: 0 };

    /// `nanos` billionths of the currency.
    pub const fn from_nanos(nanos: u64) -> Cost {
        Cost { nanos }
    }

    /// An amount in whole currency units (e.g. dollars), rounded to the nearest billionth;
    /// negative and non-finite amounts are zero.
    pub fn from_usd(amount: f64) -> Cost {
        if amount.is_finite() && amount > 0.0 {
            // `as` saturates at u64::MAX.
            Cost {
                nanos: (amount * 1e9).round() as u64,
            }
        } else {
            Cost::ZERO
        }
    }

    /// Billionths of the currency.
    pub const fn nanos(self) -> u64 {
        self.nanos
    }

    /// In whole currency units (e.g. dollars).
    pub fn as_usd(self) -> f64 {
        self.nanos as f64 / 1e9
    }
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, rhs: Cost) -> Cost {
        Cost {
            nanos: self.nanos.saturating_add(rhs.nanos),
        }
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, rhs: Cost) {
        *self = *self + rhs;
    }
}

impl std::iter::Sum for Cost {
    fn sum<I: Iterator<Item = Cost>>(iter: I) -> Cost {
        iter.fold(Cost::ZERO, Add::add)
    }
}

impl fmt::Display for Cost {
    /// `$0.001234`: six decimals (a millionth of a dollar).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micros = (self.nanos + 500) / 1000;
        write!(f, "${}.{:06}", micros / 1_000_000, micros % 1_000_000)
    }
}
