//! The expansion of `#[agent]`'s builders: the builder type, its bounds, and the code that
//! configures a builder from the attribute's keys.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::attrs::{AgentAttrs, InstructionsAttr};
use super::codegen::{Target, ToolEntry, context_state, output};

/// `AgentBuilder<Toolset, Spec, C, S>`.
///
/// The `builder`/`into_builder` returning it ask nothing of the output or the tools. The
/// output spec is written out (`StructuredSpec<Output>`, an `OutputSpec` whatever `Output`
/// is) and made through a probe that compiles either way, so a bad output type is reported
/// once, at the user's type, by the output-name check in
/// [`generate_toolset`](super::codegen::generate_toolset) (which names `AgentOutput`). The
/// expansion uses the tools only through items spanned on the user's tokens and probes that
/// compile either way, so a type that is not a tool (or does not fit) is reported where it is
/// listed. Neither is reported again at `builder(..)` or `.build()`.
pub fn builder_type(sdk: &TokenStream, target: &Target<'_>, attrs: &AgentAttrs) -> TokenStream {
    let toolset = &target.toolset;
    let (context, state) = context_state(attrs);
    let (output_ty, _) = output(sdk, attrs);
    quote! { #sdk::agent::AgentBuilder<#toolset, #output_ty, #context, #state> }
}

/// `where` bounds for the impl holding the agent's `builder`/`into_builder`: the declared
/// context and state are `Send + Sync + 'static` (tools and sub-agents read them from other
/// threads). Higher-ranked, so rustc does not check them where the agent is declared, and on
/// the impl, so a context that is not thread-safe is one error where the builder is asked for
/// (`MyAgent::builder(model)`, naming the field that is not), and the builder it would have
/// returned is not there to fail again at `.build()` and at each run.
pub fn thread_safe_bounds(attrs: &AgentAttrs) -> TokenStream {
    let bounds = [&attrs.context, &attrs.state]
        .into_iter()
        .flatten()
        .map(|ty| {
            quote_spanned! {ty.span()=>
                for<'__agentry> #ty: ::core::marker::Send + ::core::marker::Sync + 'static
            }
        });
    quote!(where #(#bounds,)*)
}

/// `AgentBuilder::new(model, toolset)` with the attribute's output, instructions and limits;
/// a review of no tool is left out, its error pushed to `errors`.
pub fn configure(
    sdk: &TokenStream,
    attrs: &AgentAttrs,
    docs: &str,
    toolset: TokenStream,
    entries: &[ToolEntry],
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let (_, output_spec) = output(sdk, attrs);
    configure_with(sdk, attrs, docs, toolset, entries, output_spec, errors)
}

/// [`configure`] with another expression for the output spec.
pub fn configure_with(
    sdk: &TokenStream,
    attrs: &AgentAttrs,
    docs: &str,
    toolset: TokenStream,
    entries: &[ToolEntry],
    output_spec: TokenStream,
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let instructions = match &attrs.instructions {
        Some(InstructionsAttr::Text(text)) => quote!(.instructions(#text)),
        Some(InstructionsAttr::Constant(path)) => {
            quote_spanned! {path.span()=> .instructions(#path) }
        }
        Some(InstructionsAttr::Function(path)) => {
            quote_spanned! {path.span()=> .dynamic_instructions(#path) }
        }
        None if !docs.is_empty() => quote!(.instructions(#docs)),
        None => quote!(),
    };
    let max_turns = attrs.max_turns.as_ref().map(|n| quote!(.max_turns(#n)));
    let protocol = attrs.protocol.as_ref().map(|p| match p {
        super::attrs::ProtocolAttr::React => {
            quote!(.protocol(#sdk::protocol::ToolProtocol::react()))
        }
        super::attrs::ProtocolAttr::Native => {
            quote!(.protocol(#sdk::protocol::ToolProtocol::Native))
        }
    });
    let middleware =
        super::middleware::configure(sdk, &attrs.middleware, &attrs.reviews, entries, errors);
    let guardrails = super::guardrails::configure(&attrs.guardrails);
    quote! {
        #sdk::agent::AgentBuilder::new(model, #toolset)
            .output(#output_spec)
            #instructions
            #max_turns
            #protocol
            #middleware
            #guardrails
    }
}

/// `tokens` with every span set to `span`.
pub(super) fn respan(tokens: &TokenStream, span: Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(&g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
