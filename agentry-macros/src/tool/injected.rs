//! The expansion of a tool's injected parameters (`Context<T>`, `State<T>`, `Store`,
//! `ToolCallId`, `StreamWriter<E>`, `#[inject]` types): their bounds on the `CallTool` impl,
//! their extraction before the tool's future starts (so the future owns them), and what a
//! `StreamWriter<E>` tells the agents listing the tool.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};
use syn::Type;
use syn::spanned::Spanned;

use super::codegen::respan;
use super::params::{ParamKind, Signature};

/// The pieces of the expansion for a tool's injected parameters.
pub struct Injected {
    /// The `CallTool` impl's where-clause predicates.
    pub bounds: Vec<TokenStream>,
    /// Each value extracted from the runtime, before the future starts (a `Result`).
    pub lets: Vec<TokenStream>,
    /// Inside the future: each value, or the tool's inject error.
    pub unwraps: Vec<TokenStream>,
    /// `ToolEvents` for the marker, when the tool takes a `StreamWriter<E>`.
    pub events: Option<TokenStream>,
}

/// The expansion for the injected parameters of `sig`, for tool `name` (its marker struct
/// `marker`).
pub fn expand(sdk: &TokenStream, sig: &Signature, name: &str, marker: &Ident) -> Injected {
    let injected: Vec<_> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Injected))
        .collect();
    // A `Context<T>` or `State<T>` is `Send` exactly when the agent's context or state is
    // thread-safe, which the agent asks itself (where its builder is asked for, or where it is
    // listed as a sub-agent): here the bound is higher-ranked, which rustc assumes in the body
    // without checking it as a trivially false bound, so a context that is not thread-safe is
    // that one error, not two more at every tool taking it. Any other injected type is the
    // tool's own and is checked here, at its token.
    // An `Interrupt` is made through its probe, below, and needs no bound: its types are
    // checked once, where the tool checks a resume's answer.
    let bounds = injected
        .iter()
        .filter(|p| !p.is_interrupt())
        .map(|p| {
            let ty = &p.ty;
            if depends_on_agent(ty) {
                quote_spanned! {ty.span()=>
                    #ty: #sdk::Inject<__C, __S> + 'static,
                    for<'__agentry> #ty: ::core::marker::Send
                }
            } else {
                quote_spanned! {ty.span()=>
                    #ty: #sdk::Inject<__C, __S> + ::core::marker::Send + 'static
                }
            }
        })
        .collect();
    let lets = injected
        .iter()
        .map(|p| {
            let (ident, ty) = (&p.ident, &p.ty);
            if p.is_interrupt() {
                // Through the probe, so that a question or answer type that does not
                // serialize leaves `ask(..)` in the body callable: the one error is the
                // tool's `InterruptTypes` check.
                quote! {
                    let #ident = {
                        #[allow(unused_imports)]
                        use #sdk::__private::{ProbeInterrupt as _, ProbeInterruptUnfit as _};
                        (&&#sdk::__private::InterruptProbe::<#ty>::new()).make(__agentry_runtime)
                    };
                }
            } else {
                quote! {
                    let #ident = <#ty as #sdk::Inject<__C, __S>>::inject(__agentry_runtime);
                }
            }
        })
        .collect();
    let unwraps = injected
        .iter()
        .map(|p| {
            let ident = &p.ident;
            quote! {
                let #ident = match #ident {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(error) => {
                        return ::core::result::Result::Err(#sdk::__private::inject_error(#name, error));
                    }
                };
            }
        })
        .collect();
    // A tool taking a `StreamWriter<E>` tells the agents listing it what it writes, so an
    // agent whose events are another type is a compile error at the tool's name.
    let events = injected.iter().find(|p| is_stream_writer(&p.ty)).map(|p| {
        let ty = &p.ty;
        let sdk = respan(sdk, ty.span());
        quote_spanned! {ty.span()=>
            impl #sdk::__private::checks::ToolEvents for #marker {
                type Event = <#ty as #sdk::__private::checks::WriterEvent>::Event;
            }
        }
    });
    Injected {
        bounds,
        lets,
        unwraps,
        events,
    }
}

/// Whether `ty` is the agent's context or state (`Context<T>`, `State<T>`, or one of them in a
/// wrapper such as `Option<Context<T>>`), whose `Send` the agent's own declaration decides.
fn depends_on_agent(ty: &Type) -> bool {
    let agent_owned = |name: &str| matches!(name, "Context" | "State");
    super::param_types::extractor_name(ty).is_some_and(agent_owned)
        || super::param_types::wrapped_extractor(ty).is_some_and(|(_, name)| agent_owned(name))
}

/// Whether `ty` is the SDK's `StreamWriter` (by its last path segment, as the extractors are
/// recognized).
fn is_stream_writer(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "StreamWriter"))
}
