//! Parsing `#[agent(...)]`: every mistake is collected, each spanned on the user's tokens.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitInt, LitStr, Path, Token, Type};

use super::guardrails::GuardrailAttr;
use super::middleware::{ReviewAttr, parse_middleware, parse_review};
use super::sub_agent::AsTool;

const KEYS: &str = "tools, output, context, state, events, max_turns, instructions, middleware, review, protocol, as_tool, guardrails";

/// Where the system prompt comes from.
pub enum InstructionsAttr {
    /// `instructions = "..."`.
    Text(LitStr),
    /// `instructions = path::to_fn`: `fn(&Context, &State) -> String`.
    Function(Path),
    /// `instructions = PROMPT`: a constant (its name in upper case, as Rust names constants),
    /// anything `Into<Arc<str>>` such as a `&'static str`.
    Constant(Path),
}

/// How the tools reach the model: `protocol = react` or `protocol = native`.
pub enum ProtocolAttr {
    /// Native function calling.
    Native,
    /// The ReAct text protocol.
    React,
}

/// The parsed `#[agent(...)]` arguments.
pub struct AgentAttrs {
    /// The tools, in order, and the span of the `tools(...)` list.
    pub tools: Vec<Path>,
    pub tools_span: Span,
    /// The output type. One of a shape no answer fills (see [`unanswerable`]) is reported on
    /// the attribute and kept: the agent is generated on a stand-in spec for it.
    pub output: Option<Type>,
    pub context: Option<Type>,
    pub state: Option<Type>,
    /// `events = Type`: what the tools write through their `StreamWriter`s.
    pub events: Option<Type>,
    pub max_turns: Option<LitInt>,
    pub instructions: Option<InstructionsAttr>,
    /// `middleware(...)`: middleware values, in order.
    pub middleware: Vec<Expr>,
    /// `review(...)`: the tools a human reviews, with their allowed decisions.
    pub reviews: Vec<ReviewAttr>,
    /// `protocol = react | native`.
    pub protocol: Option<ProtocolAttr>,
    /// `as_tool(...)`: how the agent looks as a tool of another agent.
    pub as_tool: Option<AsTool>,
    /// `guardrails(...)`: guardrails with their kinds, in order.
    pub guardrails: Vec<GuardrailAttr>,
}

/// Parses the attribute: the keys that parsed, and every error found, combined. `tools(...)`
/// is required on a struct, optional on an impl block (whose `#[tool]` methods are tools).
///
/// The agent is generated from the keys that parsed even when others did not, so its uses
/// (`Planner::builder(..)`) add no errors of their own beside the one on the attribute.
pub fn parse(attr: TokenStream, tools_required: bool) -> (AgentAttrs, Option<syn::Error>) {
    let mut errors: Vec<syn::Error> = Vec::new();
    let mut tools: Option<(Vec<Path>, Span)> = None;
    let mut output = None;
    let mut context = None;
    let mut state = None;
    let mut events = None;
    let mut max_turns = None;
    let mut instructions = None;
    let mut middleware = None;
    let mut reviews = None;
    let mut protocol = None;
    let mut as_tool = None;
    let mut guardrails = None;
    let mut tools_written = false;

    let parser = |input: ParseStream<'_>| -> syn::Result<()> {
        while !input.is_empty() {
            let key = input.call(Ident::parse_any)?;
            let name = key.to_string();
            let result: syn::Result<()> = match name.as_str() {
                "tools" => {
                    tools_written = true;
                    parse_tools(input, &key)
                }
                .map(|list| set(&mut tools, list, &key, &mut errors)),
                "output" => type_value(input, &key, &mut errors)
                    .map(|t| set(&mut output, t, &key, &mut errors)),
                "context" => type_value(input, &key, &mut errors)
                    .map(|t| owned(t, &key, &mut errors))
                    .map(|t| set(&mut context, t, &key, &mut errors)),
                "state" => type_value(input, &key, &mut errors)
                    .map(|t| owned(t, &key, &mut errors))
                    .map(|t| set(&mut state, t, &key, &mut errors)),
                "events" => type_value(input, &key, &mut errors)
                    .map(|t| set(&mut events, t, &key, &mut errors)),
                "max_turns" => value::<Expr>(input, &key)
                    .and_then(|expr| max_turns_value(&expr))
                    .map(|lit| set(&mut max_turns, lit, &key, &mut errors)),
                "instructions" => parse_instructions(input, &key)
                    .map(|i| set(&mut instructions, i, &key, &mut errors)),
                "middleware" => parse_middleware(input, &key)
                    .map(|m| set(&mut middleware, m, &key, &mut errors)),
                "review" => {
                    parse_review(input, &key).map(|r| set(&mut reviews, r, &key, &mut errors))
                }
                "protocol" => {
                    parse_protocol(input, &key).map(|p| set(&mut protocol, p, &key, &mut errors))
                }
                "as_tool" => super::sub_agent::parse(input, &key)
                    .map(|a| set(&mut as_tool, a, &key, &mut errors))
                    .inspect_err(|_| {
                        // The struct is still meant to be a tool: generate it with
                        // the default options, for any parent's context, so its parent
                        // adds no "not a tool" nor a context error.
                        as_tool.get_or_insert_with(|| AsTool {
                            span: Some(key.span()),
                            unparsed: true,
                            ..AsTool::default()
                        });
                    }),
                "guardrails" => super::guardrails::parse(input, &key)
                    .map(|g| set(&mut guardrails, g, &key, &mut errors)),
                _ => {
                    let hint = elsewhere(&name)
                        .map(|s| format!(": {s}"))
                        .or_else(|| suggestion(&name).map(|s| format!(" (did you mean `{s}`?)")))
                        .unwrap_or_default();
                    errors.push(syn::Error::new(
                        key.span(),
                        format!("unknown `#[agent]` key `{name}`{hint}; the keys are: {KEYS}"),
                    ));
                    skip_value(input);
                    Ok(())
                }
            };
            if let Err(e) = result {
                errors.push(e);
                skip_value(input);
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(())
    };
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }

    if let Some(ty) = &output
        && let Some(reason) = unanswerable(ty)
    {
        errors.push(syn::Error::new_spanned(ty, reason));
    }
    if tools_required && tools.is_none() && !tools_written {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`#[agent]` needs its tools: write `#[agent(tools(get_weather, book_hotel))]`, or `tools()` for an agent without tools",
        ));
    }
    let error = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    });
    let (tools, tools_span) = tools.unwrap_or_else(|| (Vec::new(), Span::call_site()));
    let attrs = AgentAttrs {
        tools,
        tools_span,
        output,
        context,
        state,
        events,
        max_turns,
        instructions,
        middleware: middleware.unwrap_or_default(),
        reviews: reviews.unwrap_or_default(),
        protocol,
        as_tool,
        guardrails: guardrails.unwrap_or_default(),
    };
    (attrs, error)
}

/// Why an output type of a shape no model answer fills cannot be one: a tuple, `()`, a
/// reference, an array, a pointer, a function or a trait object. Named types are checked by
/// the compiler (`AgentOutput`), which says which derive is missing.
pub fn unanswerable(ty: &Type) -> Option<&'static str> {
    Some(match ty {
        Type::Tuple(t) if t.elems.is_empty() => {
            "`()` is no answer: leave out `output = ...` for a plain-text answer"
        }
        Type::Tuple(_) => {
            "a tuple cannot be an agent's output: the model answers a JSON object, whose fields \
             need names; write a struct, e.g. `#[derive(Deserialize, JsonSchema, \
             StructuredOutput)] struct Rating { title: String, score: u32 }`, and `output = Rating`"
        }
        Type::Reference(_) => {
            "an agent's output is owned, parsed from the model's answer: write `output = String` \
             or your own type, not a reference"
        }
        Type::Array(_) | Type::Slice(_) => {
            "an array cannot be an agent's output: write `output = Vec<T>`, or a struct with a \
             `Vec<T>` field"
        }
        Type::Path(p) if p.qself.is_none() && last_is(p, "Result") => {
            "`Result` cannot be an agent's output: write its `Ok` type (`output = T` for \
             `Result<T, E>`); a run that fails is `Err(RunError)` already, and an answer that \
             does not parse is asked again or fails the run"
        }
        Type::Path(p) if p.qself.is_none() && last_is(p, "Option") => {
            "`Option` cannot be an agent's output: the model always answers; write a struct \
             with an `Option<..>` field (`struct Found { item: Option<Item> }`) and `output = \
             Found`"
        }
        Type::Ptr(_)
        | Type::FnPtr(_)
        | Type::TraitObject(_)
        | Type::ImplTrait(_)
        | Type::Never(_) => {
            "an agent's output is data the model fills as JSON: write `output = String` or a type \
             with `#[derive(Deserialize, JsonSchema, StructuredOutput)]`"
        }
        _ => return None,
    })
}

/// Whether the path's last segment is `name` with angle-bracketed arguments (`Result<A, B>`,
/// `std::option::Option<T>`), as the prelude's types are written.
fn last_is(path: &syn::TypePath, name: &str) -> bool {
    path.path.segments.last().is_some_and(|s| {
        s.ident == name && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
    })
}

fn set<T>(slot: &mut Option<T>, value: T, key: &Ident, errors: &mut Vec<syn::Error>) {
    if slot.is_some() {
        errors.push(syn::Error::new(
            key.span(),
            format!("`{key}` is given twice; keep one"),
        ));
    } else {
        *slot = Some(value);
    }
}

fn value<T: syn::parse::Parse>(input: ParseStream<'_>, key: &Ident) -> syn::Result<T> {
    if !input.peek(Token![=]) {
        return Err(syn::Error::new(key.span(), format!("write `{key} = ...`")));
    }
    input.parse::<Token![=]>()?;
    input.parse::<T>()
}

/// `key = Type`; a literal in the type's place (`context = "User"`) is one error saying to
/// write the type itself. A string naming a type is then read as that type, so the agent's
/// uses (`agent.run(.., User)`) add no error of their own.
/// A context or state is shared by every call of every run the agent makes, so it is owned: a
/// reference without `'static` is one error here (rustc's own would be several, none saying
/// what to write). The agent is generated with a state's reference made `'static`, and a
/// context's replaced by a stand-in a run accepts any reference for.
fn owned(ty: Type, key: &Ident, errors: &mut Vec<syn::Error>) -> Type {
    let Type::Reference(mut reference) = ty else {
        return ty;
    };
    if reference
        .lifetime
        .as_ref()
        .is_some_and(|l| l.ident == "static")
    {
        return Type::Reference(reference);
    }
    let owned = crate::tool::owned_text(&reference);
    errors.push(syn::Error::new_spanned(
        &reference,
        format!(
            "an agent's {key} is shared by every call of every run, so it is owned: write \
             `{key} = {owned}` (or `Arc<..>` to share it without copies; `&'static ..` for \
             data that lives as long as the program)"
        ),
    ));
    if key == "context" {
        // A stand-in a run accepts any reference for: a run passing a local borrow adds no
        // "does not live long enough".
        let sdk = crate::crate_path::sdk_path();
        return syn::parse_quote_spanned!(reference.span()=> #sdk::__private::agent::BorrowedContext);
    }
    reference.lifetime = Some(syn::Lifetime::new(
        "'static",
        proc_macro2::Span::call_site(),
    ));
    Type::Reference(reference)
}

fn type_value(
    input: ParseStream<'_>,
    key: &Ident,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<Type> {
    if input.peek(Token![=]) && input.peek2(Lit) {
        input.parse::<Token![=]>()?;
        let lit: Lit = input.parse()?;
        let named = match &lit {
            Lit::Str(s) => s.parse::<Type>().ok().map(|ty| (s.value(), ty)),
            _ => None,
        };
        let written = named.as_ref().map_or("MyType", |(text, _)| text.as_str());
        let error = syn::Error::new(
            lit.span(),
            format!("`{key}` takes a type, not a literal: write `{key} = {written}`"),
        );
        return match named {
            Some((_, ty)) => {
                errors.push(error);
                Ok(ty)
            }
            None => Err(error),
        };
    }
    value::<Type>(input, key)
}

fn parse_tools(input: ParseStream<'_>, key: &Ident) -> syn::Result<(Vec<Path>, Span)> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            "write the tools in parentheses: `tools(get_weather, book_hotel)`",
        ));
    }
    let content;
    let parens = syn::parenthesized!(content in input);
    let list = tool_list(&content);
    if list.is_err() {
        // Consume the rest, so that syn adds no "unexpected token" after the error.
        let _ = content.parse::<TokenStream>();
    }
    Ok((list?, parens.span.join()))
}

/// The paths inside `tools(..)`, with a precise error for a string or a doubled comma.
fn tool_list(content: ParseStream<'_>) -> syn::Result<Vec<Path>> {
    let mut list = Vec::new();
    while !content.is_empty() {
        if content.peek(Token![,]) {
            return Err(content.error("two commas in a row: remove one"));
        }
        if content.peek(Lit) {
            let lit: Lit = content.parse()?;
            let name = match &lit {
                Lit::Str(s) if syn::parse_str::<Path>(&s.value()).is_ok() => s.value(),
                _ => "get_weather".to_string(),
            };
            return Err(syn::Error::new(
                lit.span(),
                format!("a tool is named by its path, not a literal: write `tools({name})`"),
            ));
        }
        let path = content.parse::<Path>()?;
        if content.peek(syn::token::Paren) {
            let args: proc_macro2::Group = content.parse()?;
            let name = path_text(&path);
            return Err(syn::Error::new(
                args.span(),
                format!(
                    "a tool is listed by its name, not called: write `tools({name})`; the model gives its arguments when it calls it"
                ),
            ));
        }
        list.push(path);
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            return Err(
                content.error("separate the tools with commas: `tools(get_weather, book_hotel)`")
            );
        }
        content.parse::<Token![,]>()?;
    }
    Ok(list)
}

/// A path as written, without spaces (`module::tool`).
fn path_text(path: &Path) -> String {
    quote::ToTokens::to_token_stream(path)
        .to_string()
        .replace(' ', "")
}

/// `max_turns = N`: a whole number from 1 to `u32::MAX`, each mistake said precisely.
fn max_turns_value(expr: &Expr) -> syn::Result<LitInt> {
    const RANGE: &str = "`max_turns` is the most model requests of one run, from 1 to 4294967295";
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => match lit.base10_parse::<u64>() {
            Ok(0) => Err(syn::Error::new(
                lit.span(),
                "`max_turns = 0` would end every run before its first model request; write at least `max_turns = 1`",
            )),
            Ok(n) if n > u64::from(u32::MAX) => Err(syn::Error::new(
                lit.span(),
                format!("`max_turns = {n}` is too large: {RANGE}"),
            )),
            Ok(_) if !matches!(lit.suffix(), "" | "u32") => Err(syn::Error::new(
                lit.span(),
                format!(
                    "`max_turns` is a `u32`: write `max_turns = {}`",
                    lit.base10_digits()
                ),
            )),
            Ok(_) => Ok(lit.clone()),
            Err(_) => Err(syn::Error::new(
                lit.span(),
                format!(
                    "`{lit}` is not a `u32`: {RANGE}, written without a suffix, e.g. `max_turns = 10`"
                ),
            )),
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => Err(syn::Error::new_spanned(
            expr,
            format!("`max_turns` cannot be negative: {RANGE}"),
        )),
        other => Err(syn::Error::new_spanned(
            other,
            "`max_turns` takes a whole number of model requests, e.g. `max_turns = 10` (not a string or an expression)",
        )),
    }
}

fn parse_instructions(input: ParseStream<'_>, key: &Ident) -> syn::Result<InstructionsAttr> {
    let expr: Expr = value(input, key)?;
    match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(InstructionsAttr::Text(s)),
        Expr::Path(p) if p.qself.is_none() && names_constant(&p.path) => {
            Ok(InstructionsAttr::Constant(p.path))
        }
        Expr::Path(p) if p.qself.is_none() => Ok(InstructionsAttr::Function(p.path)),
        other => Err(syn::Error::new_spanned(
            other,
            "`instructions` is a string, `instructions = \"...\"`, a constant, `instructions = PROMPT` with `const PROMPT: &str = \"...\"`, or a function of the context and state, `instructions = my_prompt` with `fn my_prompt(ctx: &Ctx, state: &State) -> String`",
        )),
    }
}

/// Whether a path names a constant: its last segment is in upper case (`PROMPT`,
/// `prompts::SUPPORT_V2`), as Rust names constants and statics; functions are in snake case.
fn names_constant(path: &Path) -> bool {
    path.segments.last().is_some_and(|last| {
        let name = last.ident.to_string();
        name.chars().any(|c| c.is_ascii_uppercase())
            && !name.chars().any(|c| c.is_ascii_lowercase())
    })
}

fn parse_protocol(input: ParseStream<'_>, key: &Ident) -> syn::Result<ProtocolAttr> {
    let expr: Expr = value(input, key)?;
    match &expr {
        Expr::Path(p) if p.path.is_ident("react") => Ok(ProtocolAttr::React),
        Expr::Path(p) if p.path.is_ident("native") => Ok(ProtocolAttr::Native),
        other => Err(syn::Error::new_spanned(
            other,
            "`protocol` is `react` (tools through the ReAct text protocol, for models without function calling) or `native` (function calling): write `protocol = react`",
        )),
    }
}

/// Skips to the next top-level comma.
fn skip_value(input: ParseStream<'_>) {
    let _ = input.step(|cursor| {
        let mut rest = *cursor;
        while let Some((tt, next)) = rest.token_tree() {
            if let proc_macro2::TokenTree::Punct(p) = &tt
                && p.as_char() == ','
            {
                return Ok(((), rest));
            }
            rest = next;
        }
        Ok(((), rest))
    });
}

/// Where a setting other frameworks put on the agent goes here, for keys that are not ours.
fn elsewhere(name: &str) -> Option<&'static str> {
    Some(match name {
        "model" | "llm" => {
            "the model is a value, passed when the agent is built: `MyAgent::builder(model)`"
        }
        "handoffs" | "handoff" | "agents" | "sub_agents" | "subagents" => {
            "an agent another agent calls is listed in its `tools(...)` (`tools(Researcher)`, \
             with `as_tool(..)` on `Researcher` for its description); agents that hand the \
             conversation to each other form a `multi::Team`"
        }
        "retries" | "max_retries" | "max_tool_retries" => {
            "retries are set when the agent is built: `.max_tool_retries(n)` on its builder"
        }
        "temperature" | "max_tokens" | "top_p" | "seed" => {
            "sampling settings are set when the agent is built: `.temperature(..)`, `.max_tokens(..)` or \
             `.model_settings(..)` on its builder"
        }
        "name" => {
            "an agent's name is set when it is built, `.name(\"..\")` on its builder; as \
             another agent's tool, its name goes in `as_tool(name = \"..\")`"
        }
        "description" => {
            "an agent's `///` doc comment is its instructions; as another agent's tool, its \
             description goes in `as_tool(description = \"..\")`"
        }
        _ => return None,
    })
}

/// The closest known key, for typos.
fn suggestion(name: &str) -> Option<&'static str> {
    const ALL: [&str; 12] = [
        "tools",
        "output",
        "context",
        "state",
        "events",
        "max_turns",
        "instructions",
        "middleware",
        "review",
        "protocol",
        "as_tool",
        "guardrails",
    ];
    crate::suggest::closest(name, &ALL)
}
