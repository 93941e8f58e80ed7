//! [`restate_object!`](crate::restate_object): the virtual object that serves a
//! [`RestateAgent`](super::RestateAgent), declared in one line.

/// Declares a Restate virtual object serving a [`RestateAgent`](crate::restate::RestateAgent),
/// with its four handlers (all taking and returning JSON):
///
/// | handler | kind | does |
/// |---|---|---|
/// | `run` | exclusive | runs one user message (a JSON string) on the thread; replies a [`RunReply`](crate::restate::RunReply) |
/// | `pending` | shared | the review the thread's run waits for, if any ([`PendingReview`](crate::restate::PendingReview)) |
/// | `decide` | shared | decides that review ([`Decisions`](crate::restate::Decisions)); `true` when a run was waiting |
/// | `thread` | shared | the thread as saved after its last run ([`SavedThread`](crate::restate::SavedThread)) |
///
/// The struct's name is the service's name (`POST {ingress}/{Name}/{thread}/run`). The
/// crate using it depends on `restate-sdk` itself (the SDK's `#[object]` macro expands in
/// it), as it does anyway to serve the endpoint. Write the object by hand, delegating to
/// [`RestateAgent`](crate::restate::RestateAgent)'s methods, to name or add handlers.
///
/// ```no_run
/// use agentry::output::TextOutput;
/// use agentry::prelude::*;
/// use agentry::restate::RestateAgent;
/// use agentry::testing::{ScriptedModel, Turn};
/// use restate_sdk::prelude::*;
///
/// /// You answer briefly.
/// #[agent(tools())]
/// struct Helper;
///
/// agentry::restate_object! {
///     /// One object per conversation, keyed by its id.
///     pub struct Threads(RestateAgent<Helper, TextOutput, (), ()>);
/// }
///
/// # async fn serve() {
/// let agent = Helper::builder(ScriptedModel::new([Turn::text("Hi.")])).build();
/// let threads = Threads(RestateAgent::new(agent, ()));
/// HttpServer::new(Endpoint::builder().bind(threads).build())
///     .listen_and_serve("127.0.0.1:9080".parse().unwrap())
///     .await;
/// # }
/// ```
#[macro_export]
macro_rules! restate_object {
    ($(#[$meta:meta])* $vis:vis struct $name:ident($agent:ty);) => {
        $(#[$meta])*
        $vis struct $name(pub $agent);

        #[::restate_sdk::object]
        impl $name {
            /// Runs one user message (one run at a time per thread).
            #[handler]
            async fn run(
                &self,
                ctx: ::restate_sdk::prelude::ObjectContext<'_>,
                input: ::restate_sdk::prelude::Json<::std::string::String>,
            ) -> ::restate_sdk::prelude::HandlerResult<
                ::restate_sdk::prelude::Json<$crate::restate::RunReply>,
            > {
                self.0
                    .run(&ctx, input.into_inner())
                    .await
                    .map(::restate_sdk::prelude::Json)
            }

            /// The review the thread's run waits for.
            #[handler]
            async fn pending(
                &self,
                ctx: ::restate_sdk::prelude::SharedObjectContext<'_>,
            ) -> ::restate_sdk::prelude::HandlerResult<
                ::restate_sdk::prelude::Json<::std::option::Option<$crate::restate::PendingReview>>,
            > {
                <$agent>::pending(&ctx)
                    .await
                    .map(::restate_sdk::prelude::Json)
            }

            /// Decides the review: `{"call id": {"decision": "approve"}}`.
            #[handler]
            async fn decide(
                &self,
                ctx: ::restate_sdk::prelude::SharedObjectContext<'_>,
                decisions: ::restate_sdk::prelude::Json<$crate::restate::Decisions>,
            ) -> ::restate_sdk::prelude::HandlerResult<bool> {
                <$agent>::decide(&ctx, decisions.into_inner()).await
            }

            /// The thread as saved after its last run.
            #[handler]
            async fn thread(
                &self,
                ctx: ::restate_sdk::prelude::SharedObjectContext<'_>,
            ) -> ::restate_sdk::prelude::HandlerResult<
                ::restate_sdk::prelude::Json<$crate::restate::SavedThread>,
            > {
                <$agent>::thread(&ctx)
                    .await
                    .map(::restate_sdk::prelude::Json)
            }
        }
    };
}
