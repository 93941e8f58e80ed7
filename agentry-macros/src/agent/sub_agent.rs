//! An `#[agent]` struct as a tool of another agent: `as_tool(...)` parsing, and the
//! `SubAgent`, `Tool`, `CallTool<PC, PS>` and `ProjectContext<PC>` impls.
//!
//! A unit struct (`struct Researcher;`) is always usable as a tool; a struct with fields (its
//! tools' resources) opts in with `as_tool` and must be `Clone + Default`. Every requirement
//! that only matters when the agent is used as a tool (a `Default` state, a serializable
//! output, a context the parent can provide) is a bound mentioning the parent's context type,
//! so it is checked where the agent is listed in `tools(...)`, not where it is declared.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Fields, Ident, ItemStruct, LitStr, Path, Token, Type};

use super::attrs::AgentAttrs;
use super::builder_codegen::respan;
use super::codegen::{ToolEntry, configure_with, context_state, output};
use crate::crate_path::sdk_path;

/// `as_tool(name = "...", description = "...", input = Type, context_from(Parent = f, ...))`.
#[derive(Default)]
pub struct AsTool {
    pub span: Option<Span>,
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub input: Option<Type>,
    /// `(parent context type, projection)`: a function's path, or a closure.
    pub context_from: Vec<(Type, Projection)>,
    /// The options did not parse (an error is already reported): the agent is still made a
    /// tool, for any parent's context, so its parent adds no second error.
    pub unparsed: bool,
}

const KEYS: &str = "name, description, input, context_from";

/// Parses the parenthesized part of `as_tool(...)`.
pub fn parse(input: ParseStream<'_>, key: &Ident) -> syn::Result<AsTool> {
    // A bare `as_tool` is `as_tool()`: the defaults.
    if input.is_empty() || input.peek(Token![,]) {
        return Ok(AsTool {
            span: Some(key.span()),
            ..AsTool::default()
        });
    }
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            "write the options in parentheses: `as_tool(description = \"Finds facts.\")`, or `as_tool`",
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let parsed = parse_options(&content, key);
    if parsed.is_err() {
        // Leave nothing unparsed, so the one error stands alone.
        let _ = content.parse::<TokenStream>();
    }
    parsed
}

fn parse_options(content: ParseStream<'_>, key: &Ident) -> syn::Result<AsTool> {
    let mut out = AsTool {
        span: Some(key.span()),
        ..AsTool::default()
    };
    while !content.is_empty() {
        let key: Ident = content.parse()?;
        match key.to_string().as_str() {
            "name" => {
                let lit = string_option(content, &key, "researcher")?;
                if let Err(message) =
                    crate::names::check_provider_name(&lit.value(), "tool", "researcher")
                {
                    return Err(syn::Error::new(lit.span(), message));
                }
                out.name = Some(lit);
            }
            "description" => {
                let lit =
                    string_option(content, &key, "Researches a topic and reports the facts.")?;
                if lit.value().trim().is_empty() {
                    return Err(syn::Error::new(
                        lit.span(),
                        "the calling model reads this description to decide when to call the \
                         agent: write what it does, e.g. `description = \"Researches a topic and \
                         reports the facts.\"`, or remove `description` to use the agent's doc \
                         comment",
                    ));
                }
                out.description = Some(lit);
            }
            "input" => {
                expect_eq(content, &key, "input = Brief")?;
                if content.peek(LitStr) {
                    let lit: LitStr = content.parse()?;
                    let name = syn::parse_str::<syn::Type>(&lit.value())
                        .map(|_| lit.value())
                        .unwrap_or_else(|_| "Brief".to_string());
                    return Err(syn::Error::new(
                        lit.span(),
                        format!(
                            "`input` names the type the calling model fills, not a string: write `input = {name}` (a type with `#[derive(Deserialize, JsonSchema)]`)"
                        ),
                    ));
                }
                out.input = Some(content.parse()?);
            }
            "context_from" => {
                if !content.peek(syn::token::Paren) {
                    let span = if content.is_empty() {
                        key.span()
                    } else {
                        content.span()
                    };
                    return Err(syn::Error::new(
                        span,
                        "`context_from` lists each parent's context type with the function that \
                         makes this agent's context from it, in parentheses: write \
                         `context_from(App = my_projection)` with \
                         `fn my_projection(parent: &App) -> MyContext`",
                    ));
                }
                let inner;
                syn::parenthesized!(inner in content);
                let pairs = Punctuated::<ContextFrom, Token![,]>::parse_terminated(&inner)?;
                out.context_from
                    .extend(pairs.into_iter().map(|p| (p.parent, p.function)));
            }
            other => {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown `as_tool` option `{other}`; the options are: {KEYS}"),
                ));
            }
        }
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    Ok(out)
}

/// `key = "..."`; anything but a string after `=` is one error showing `example` written.
fn string_option(content: ParseStream<'_>, key: &Ident, example: &str) -> syn::Result<LitStr> {
    expect_eq(content, key, &format!("{key} = \"{example}\""))?;
    if content.peek(LitStr) {
        return content.parse();
    }
    let span = content.span();
    Err(syn::Error::new(
        span,
        format!("`as_tool` option `{key}` takes a string: write `{key} = \"{example}\"`"),
    ))
}

/// The `=` after an option's key; anything else (`description("..")`, a missing value) is one
/// error showing the option written as `example`.
fn expect_eq(content: ParseStream<'_>, key: &Ident, example: &str) -> syn::Result<()> {
    if content.peek(Token![=]) {
        content.parse::<Token![=]>()?;
        return Ok(());
    }
    let span = if content.is_empty() {
        key.span()
    } else {
        content.span()
    };
    Err(syn::Error::new(
        span,
        format!("`as_tool` option `{key}` is written with `=`: `as_tool({example})`"),
    ))
}

/// How a sub-agent's context is made from its parent's.
pub enum Projection {
    /// `App = notebook_for`, with `fn notebook_for(app: &App) -> Notebook`.
    Function(Path),
    /// `App = |app| Notebook { .. }`: a closure capturing nothing.
    Closure(syn::ExprClosure),
}

impl Projection {
    fn span(&self) -> Span {
        match self {
            Projection::Function(path) => path.span(),
            Projection::Closure(closure) => closure.span(),
        }
    }
}

/// `ParentContext = projection_fn` (or a closure).
struct ContextFrom {
    parent: Type,
    function: Projection,
}

impl syn::parse::Parse for ContextFrom {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let parent: Type = input.parse()?;
        if !input.peek(Token![=]) {
            return Err(syn::Error::new_spanned(
                &parent,
                "write the parent's context type and the function making this agent's context from it: `context_from(AppCtx = notes_context)`",
            ));
        }
        input.parse::<Token![=]>()?;
        let function =
            if input.peek(Token![|]) || input.peek(Token![||]) || input.peek(Token![move]) {
                Projection::Closure(input.parse()?)
            } else {
                Projection::Function(input.parse()?)
            };
        Ok(ContextFrom { parent, function })
    }
}

/// The impls making the struct a tool of other agents; empty for a struct with fields and
/// no `as_tool`.
pub fn generate(
    item: &ItemStruct,
    attrs: &AgentAttrs,
    docs: &str,
    entries: &[ToolEntry],
) -> TokenStream {
    let unit = matches!(item.fields, Fields::Unit);
    let as_tool = attrs.as_tool.as_ref();
    if !unit && as_tool.is_none() {
        return TokenStream::new();
    }
    let sdk = sdk_path();
    let name = &item.ident;
    let default_options = AsTool::default();
    let options = as_tool.unwrap_or(&default_options);
    let tool_name = options
        .name
        .as_ref()
        .map_or_else(|| snake_case(&name.to_string()), LitStr::value);
    let description = options.description.as_ref().map_or_else(
        || {
            let first =
                crate::docs::first_paragraph(&docs.lines().map(str::to_string).collect::<Vec<_>>());
            if first.is_empty() {
                format!("Ask the `{tool_name}` agent.")
            } else {
                first
            }
        },
        LitStr::value,
    );
    let input = options
        .input
        .as_ref()
        .map_or_else(|| quote!(#sdk::multi::Prompt), |t| quote!(#t));
    let (context, state) = context_state(attrs);
    // The output spec, as the agent's own builder has it: written out as `StructuredSpec<T>`
    // and made through a probe, so an output type that is not a structured output is one
    // error, at `output = ...` (the agent's output check), and not again where the sub-agent
    // is listed.
    let (spec_ty, spec) = output(&sdk, attrs);
    // A struct with fields is made with `Default` and cloned per call, both through the
    // listed-tool probe, so that one check, where it is declared, reports what it lacks.
    let fields_probe =
        quote_spanned!(name.span()=> (&#sdk::__private::checks::ToolProbe::<#name>::new()));
    let toolset = if unit {
        quote!(#name)
    } else {
        quote_spanned! {name.span()=> #fields_probe.clone_fields(self) }
    };
    let fields_impls = (!unit).then(|| {
        quote_spanned! {name.span()=>
            const _: () = {
                fn needs<T: #sdk::__private::multi::SubAgentFields>() {}
                let _ = needs::<#name>;
            };

            impl #sdk::__private::checks::MadeBySubAgent for #name {
                fn make_tool() -> Self {
                    #[allow(unused_imports)]
                    use #sdk::__private::multi::{FieldsMissing as _, FieldsOk as _};
                    #fields_probe.make_fields()
                }
            }
        }
    });
    // Errors here are reported for the agent itself.
    let make_builder = configure_with(&sdk, attrs, docs, toolset, entries, spec, &mut Vec::new());
    let default_impl = (unit && !derives(item, "Default")).then(|| {
        quote! {
            impl ::core::default::Default for #name {
                fn default() -> Self {
                    #name
                }
            }
        }
    });
    let no_context = attrs.context.as_ref().is_none_or(is_unit);
    // The sub-agent's context and state are thread-safe (`ProjectContext`'s supertrait bounds
    // ask it), stated higher-ranked: assumed here, checked where the sub-agent is listed.
    let thread_safe = {
        let context = attrs.context.iter().map(|ty| {
            let sdk = respan(&sdk, ty.span());
            quote_spanned!(ty.span()=> for<'__agentry> #ty: #sdk::agent::ContextType)
        });
        let state = attrs.state.iter().map(|ty| {
            let sdk = respan(&sdk, ty.span());
            quote_spanned!(ty.span()=> for<'__agentry> #ty: #sdk::agent::StateType)
        });
        quote!(#(#context,)* #(#state,)*)
    };
    let projections = if options.unparsed && !no_context {
        // Never runs: the program already fails to compile with the options' error.
        quote! {
            impl<__P: ::core::marker::Send + ::core::marker::Sync + 'static>
                #sdk::__private::multi::ProjectContext<__P> for #name
            where
                #thread_safe
            {
                fn project(_parent: &::std::sync::Arc<__P>) -> ::std::sync::Arc<#context> {
                    ::core::unreachable!("`as_tool(..)` did not parse")
                }
            }
        }
    } else if no_context {
        quote! {
            impl<__P: ::core::marker::Send + ::core::marker::Sync + 'static>
                #sdk::__private::multi::ProjectContext<__P> for #name
            where
                #thread_safe
            {
                fn project(_parent: &::std::sync::Arc<__P>) -> ::std::sync::Arc<()> {
                    ::std::sync::Arc::new(())
                }
            }
        }
    } else if options.context_from.is_empty() {
        quote! {
            impl<__P> #sdk::__private::multi::ProjectContext<__P> for #name
            where
                #context: #sdk::multi::FromParentContext<__P>,
                #thread_safe
            {
                fn project(parent: &::std::sync::Arc<__P>) -> ::std::sync::Arc<#context> {
                    <#context as #sdk::multi::FromParentContext<__P>>::from_parent(parent)
                }
            }
        }
    } else {
        let impls = options.context_from.iter().map(|(parent, function)| {
            let make = match function {
                Projection::Function(path) => quote_spanned! {path.span()=>
                    let context: #context = #path(&**parent);
                },
                // Typed as a function pointer, so the closure's parameter type is known.
                Projection::Closure(closure) => quote_spanned! {closure.span()=>
                    let projection: fn(&#parent) -> #context = #closure;
                    let context: #context = projection(&**parent);
                },
            };
            quote_spanned! {function.span()=>
                impl #sdk::__private::multi::ProjectContext<#parent> for #name
                where
                    #thread_safe
                {
                    fn project(parent: &::std::sync::Arc<#parent>) -> ::std::sync::Arc<#context> {
                        #make
                        ::std::sync::Arc::new(context)
                    }
                }
            }
        });
        quote!(#(#impls)*)
    };

    quote! {
        #default_impl
        #fields_impls

        impl #sdk::__private::multi::SubAgent for #name {
            const NAME: &'static str = #tool_name;
            type Input = #input;
            type Context = #context;
            type State = #state;
            type Toolset = #name;
        }

        impl<__P> #sdk::__private::multi::SubAgentBuilder<__P> for #name
        where
        {
            type Spec = #spec_ty;

            fn sub_agent_builder(
                &self,
                model: #sdk::model::SharedModel,
            ) -> #sdk::agent::AgentBuilder<#name, #spec_ty, #context, #state> {
                #[allow(unused_imports)]
                use #sdk::__private::multi::{FieldsMissing as _, FieldsOk as _};
                #make_builder
            }
        }

        // Not offered as a hint when another type is "not a tool".
        #[diagnostic::do_not_recommend]
        impl #sdk::Tool for #name {
            const NAME: &'static str = #tool_name;
            type Args = #input;

            fn definition() -> &'static #sdk::ToolDefinition {
                static DEFINITION: #sdk::__private::OnceLock<#sdk::ToolDefinition> =
                    #sdk::__private::OnceLock::new();
                DEFINITION.get_or_init(|| {
                    #sdk::__private::tool_definition::<#input>(#tool_name, #description, false)
                })
            }

            // A question carried up from one of its tools: the tool checks the answer when
            // the sub-agent runs again (a wrong shape is an error its model reads).
            fn check_answer(
                _answer: &#sdk::serde_json::Value,
            ) -> ::core::result::Result<(), ::std::string::String> {
                ::core::result::Result::Ok(())
            }
        }

        #projections

        impl<__PC, __PS> #sdk::CallTool<__PC, __PS> for #name
        where
            #name: #sdk::__private::multi::AgentTool<__PC>,
            __PC: ::core::marker::Send + ::core::marker::Sync + 'static,
            __PS: ::core::marker::Send + ::core::marker::Sync + 'static,
        {
            fn call(
                &self,
                args: #input,
                runtime: &#sdk::ToolRuntime<__PC, __PS>,
            ) -> impl #sdk::__private::Future<
                Output = ::core::result::Result<#sdk::ToolOutput, #sdk::ToolCallError>,
            > + ::core::marker::Send {
                <#name as #sdk::__private::multi::AgentTool<__PC>>::call_agent(self, args, runtime)
            }
        }
    }
}

/// `ResearchAgent` → `research_agent`.
pub fn snake_case(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    let mut out = String::with_capacity(name.len() + 4);
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_uppercase();
            if i > 0 && (prev_lower || (prev_upper && next_lower)) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn derives(item: &ItemStruct, trait_name: &str) -> bool {
    item.attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .parse_args_with(Punctuated::<Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == trait_name))
                })
    })
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn snake_case_splits_words_and_acronyms() {
        assert_eq!(snake_case("Researcher"), "researcher");
        assert_eq!(snake_case("ResearchAgent"), "research_agent");
        assert_eq!(snake_case("HTTPFetcher"), "http_fetcher");
        assert_eq!(snake_case("Agent2Writer"), "agent2_writer");
    }
}
