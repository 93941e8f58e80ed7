//! The thread-safety an agent's context and state need (`Send + Sync + 'static`: tools and
//! sub-agents read them from other threads), asked as one bound with its own message.
//!
//! Written out, `Send + Sync + 'static` fails once per auto trait (a type holding an `Rc` is
//! neither), each error naming `Rc` deep in the type; one trait is one error that names the
//! type and says what to hold instead.

/// A type an agent can take as its context: `Send + Sync + 'static`.
///
/// `#[agent]` asks it where a sub-agent is listed as a tool (an agent's own builder asks for
/// `Send + Sync + 'static` directly).
///
/// ```
/// use agentry::agent::ContextType;
///
/// fn declared<T: ContextType>() {}
/// declared::<std::sync::Arc<String>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's context: it is not `Send + Sync + 'static`",
    label = "tools and sub-agents read the context from other threads",
    note = "hold shared values in `Arc` (not `Rc`) and values that change in `Mutex`, `RwLock` or atomics (not `RefCell` or `Cell`); own the data instead of borrowing it"
)]
pub trait ContextType: Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ContextType for T {}

/// A type an agent can keep as its state: `Send + Sync + 'static`.
///
/// ```
/// use agentry::agent::StateType;
///
/// fn declared<T: StateType>() {}
/// declared::<Vec<String>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an agent's state: it is not `Send + Sync + 'static`",
    label = "tools read snapshots of the state from other threads",
    note = "hold shared values in `Arc` (not `Rc`) and values that change in `Mutex`, `RwLock` or atomics (not `RefCell` or `Cell`); own the data instead of borrowing it"
)]
pub trait StateType: Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> StateType for T {}
