//! One streamed `chat.completion.chunk`, decoded straight into the [`Accumulator`].
//!
//! A chunk decoded as a struct (the way [`WireChunk`](super::wire::WireChunk) is for several
//! choices) allocates a list of choices and of tool calls for every chunk, and serde moves the
//! structs holding them (a choice's delta is over a hundred bytes) a dozen times on the way
//! out. Here serde visits the chunk with the accumulator in hand: each piece of text and each
//! tool-call delta goes from the parser to the accumulator and its event, and nothing else is
//! built.
//!
//! What arrives is applied as it arrives, with two exceptions that keep the events in the
//! order the struct decoding gave them: a delta's texts are held until its tool calls start (or
//! it ends) and then go out as reasoning, text, refusal; and a choice whose `index` comes after
//! its `delta` is held until the index is known (only choice 0 is read).

use std::collections::VecDeque;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::stream::Accumulator;
use super::wire::{BorrowedStr, FinishText, WireDelta, WireToolCallDelta, WireUsage};
use crate::model::StreamEvent;
use crate::usage::Usage;

/// What a chunk holds besides its choice: its usage, or an error sent inside the stream.
#[derive(Default)]
pub(crate) struct ChunkRest {
    pub usage: Option<Usage>,
    pub error: Option<Value>,
}

/// Decodes chunk `data` into `acc`, pushing its events to `out`.
pub(crate) fn decode_chunk(
    data: &str,
    acc: &mut Accumulator,
    out: &mut VecDeque<StreamEvent>,
) -> serde_json::Result<ChunkRest> {
    let mut de = serde_json::Deserializer::from_str(data);
    let rest = ChunkSeed(Sink { acc, out }).deserialize(&mut de)?;
    de.end()?;
    Ok(rest)
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum ChunkKey {
    Id,
    Model,
    Choices,
    Usage,
    Error,
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum ChoiceKey {
    Index,
    Delta,
    FinishReason,
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum DeltaKey {
    Content,
    Refusal,
    ReasoningContent,
    Reasoning,
    ToolCalls,
    #[serde(other)]
    Other,
}

/// Where a chunk's parts go: the accumulator, and the events they make.
struct Sink<'s> {
    acc: &'s mut Accumulator,
    out: &'s mut VecDeque<StreamEvent>,
}

impl Sink<'_> {
    /// The same sink, for a part of the chunk.
    fn part(&mut self) -> Sink<'_> {
        Sink {
            acc: &mut *self.acc,
            out: &mut *self.out,
        }
    }
}

/// The whole chunk.
struct ChunkSeed<'s>(Sink<'s>);

impl<'de> DeserializeSeed<'de> for ChunkSeed<'_> {
    type Value = ChunkRest;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ChunkRest, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChunkSeed<'_> {
    type Value = ChunkRest;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chat.completion.chunk object")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<ChunkRest, A::Error> {
        let sink = &mut self.0;
        sink.acc.count_chunk();
        let mut rest = ChunkRest::default();
        while let Some(key) = map.next_key::<ChunkKey>()? {
            match key {
                ChunkKey::Id => {
                    let id: Option<BorrowedStr<'de>> = map.next_value()?;
                    sink.acc.note_id(id);
                }
                ChunkKey::Model => {
                    let model: Option<BorrowedStr<'de>> = map.next_value()?;
                    sink.acc.note_model(model);
                }
                ChunkKey::Choices => map.next_value_seed(Array::<Choice<'_>>::new(sink.part()))?,
                ChunkKey::Usage => {
                    rest.usage = map
                        .next_value::<Option<WireUsage>>()?
                        .map(WireUsage::to_usage);
                }
                ChunkKey::Error => rest.error = map.next_value()?,
                ChunkKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(rest)
    }
}

/// An array (or `null`) whose elements go to the sink as they are read, none kept.
struct Array<'s, E> {
    sink: Sink<'s>,
    element: PhantomData<E>,
}

impl<'s, E> Array<'s, E> {
    fn new(sink: Sink<'s>) -> Self {
        Array {
            sink,
            element: PhantomData,
        }
    }
}

/// What an [`Array`] holds.
trait Element {
    /// What the array is, for error messages.
    const WHAT: &'static str;

    /// Reads the next element into `sink`; `false` at the end of the array.
    fn next<'de, A: SeqAccess<'de>>(sink: Sink<'_>, seq: &mut A) -> Result<bool, A::Error>;
}

impl<'de, E: Element> DeserializeSeed<'de> for Array<'_, E> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, E: Element> Visitor<'de> for Array<'_, E> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(E::WHAT)
    }

    fn visit_none<Er: serde::de::Error>(self) -> Result<(), Er> {
        Ok(())
    }

    fn visit_unit<Er: serde::de::Error>(self) -> Result<(), Er> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while E::next(self.sink.part(), &mut seq)? {}
        Ok(())
    }
}

impl Element for Choice<'_> {
    const WHAT: &'static str = "an array of choices";

    fn next<'de, A: SeqAccess<'de>>(sink: Sink<'_>, seq: &mut A) -> Result<bool, A::Error> {
        Ok(seq.next_element_seed(Choice(sink))?.is_some())
    }
}

/// A delta's `tool_calls`: each call goes to the accumulator as it is read.
struct CallDelta;

impl Element for CallDelta {
    const WHAT: &'static str = "an array of tool call deltas";

    fn next<'de, A: SeqAccess<'de>>(sink: Sink<'_>, seq: &mut A) -> Result<bool, A::Error> {
        match seq.next_element::<WireToolCallDelta>()? {
            Some(call) => {
                sink.acc.on_tool_call(call, sink.out);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// One choice: applied when its index is 0.
struct Choice<'s>(Sink<'s>);

impl<'de> DeserializeSeed<'de> for Choice<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Choice<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a choice object")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let sink = &mut self.0;
        let mut index: Option<usize> = None;
        // A delta read before the index: held until the index says whether it is choice 0.
        let mut held: Option<WireDelta> = None;
        let mut finish: Option<FinishText> = None;
        while let Some(key) = map.next_key::<ChoiceKey>()? {
            match key {
                ChoiceKey::Index => {
                    index = Some(map.next_value::<Option<usize>>()?.unwrap_or(0));
                }
                ChoiceKey::Delta => match index {
                    Some(0) => map.next_value_seed(Delta(sink.part()))?,
                    Some(_) => {
                        map.next_value::<IgnoredAny>()?;
                    }
                    None => held = map.next_value::<Option<WireDelta>>()?,
                },
                ChoiceKey::FinishReason => finish = map.next_value()?,
                ChoiceKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        // A choice without an index is choice 0.
        if index.unwrap_or(0) != 0 {
            return Ok(());
        }
        if let Some(delta) = held {
            sink.acc.on_delta(delta, sink.out);
        }
        if let Some(reason) = finish.filter(|s| !s.is_empty()) {
            sink.acc.set_finish(reason);
        }
        Ok(())
    }
}

/// Choice 0's delta (or `null`).
struct Delta<'s>(Sink<'s>);

impl<'de> DeserializeSeed<'de> for Delta<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_option(self)
    }
}

/// A delta's texts, held until they go out together.
#[derive(Default)]
struct Texts {
    content: Option<String>,
    refusal: Option<String>,
    reasoning_content: Option<String>,
    reasoning: Option<String>,
}

impl Texts {
    fn flush(&mut self, sink: &mut Sink<'_>) {
        sink.acc.on_texts(
            self.reasoning_content.take().or(self.reasoning.take()),
            self.content.take(),
            self.refusal.take(),
            sink.out,
        );
    }
}

impl<'de> Visitor<'de> for Delta<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a delta object")
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        let sink = &mut self.0;
        let mut texts = Texts::default();
        while let Some(key) = map.next_key::<DeltaKey>()? {
            match key {
                DeltaKey::Content => texts.content = map.next_value()?,
                DeltaKey::Refusal => texts.refusal = map.next_value()?,
                DeltaKey::ReasoningContent => texts.reasoning_content = map.next_value()?,
                DeltaKey::Reasoning => texts.reasoning = map.next_value()?,
                DeltaKey::ToolCalls => {
                    texts.flush(sink);
                    map.next_value_seed(Array::<CallDelta>::new(sink.part()))?;
                }
                DeltaKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        texts.flush(sink);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `chunks` fed to one accumulator, and the answer they add up to.
    fn decode(chunks: &[&str]) -> (Vec<StreamEvent>, crate::model::ChatResponse) {
        let mut acc = Accumulator::new("m".into());
        let mut out = VecDeque::new();
        for chunk in chunks {
            decode_chunk(chunk, &mut acc, &mut out).unwrap();
        }
        (out.into(), acc.into_response().unwrap())
    }

    fn texts(events: &[StreamEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                StreamEvent::TextDelta { text } => format!("text {text}"),
                StreamEvent::ReasoningDelta { text } => format!("reasoning {text}"),
                StreamEvent::RefusalDelta { text } => format!("refusal {text}"),
                StreamEvent::ToolCallStart { name, .. } => format!("start {name}"),
                StreamEvent::ToolCallDelta { arguments, .. } => format!("args {arguments}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_deltas_texts_go_out_as_reasoning_text_refusal_and_before_its_tool_calls() {
        let (events, response) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"content":"b","reasoning_content":"a"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"refusal":"c","tool_calls":[{"index":0,"id":"1","function":{"name":"f","arguments":"{}"}}],"content":"d"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]);
        assert_eq!(
            texts(&events),
            [
                "reasoning a",
                "text b",
                "refusal c",
                "start f",
                "args {}",
                "text d"
            ]
        );
        assert_eq!(response.message.tool_calls[0].arguments, "{}");
    }

    #[test]
    fn a_choice_whose_index_follows_its_delta_is_held_and_other_choices_are_ignored() {
        let (events, response) = decode(&[
            r#"{"choices":[{"delta":{"content":"one"},"index":0},{"delta":{"content":"two"},"index":1}]}"#,
            r#"{"choices":[{"index":1,"delta":{"content":"three"}},{"delta":{"content":" more"}}]}"#,
            r#"{"choices":[{"finish_reason":"stop","index":0}]}"#,
        ]);
        assert_eq!(texts(&events), ["text one", "text  more"]);
        assert_eq!(response.message.text(), "one more");
    }

    #[test]
    fn nulls_and_unknown_keys_are_nothing() {
        let (events, response) = decode(&[
            r#"{"id":"x","object":"chat.completion.chunk","choices":null,"usage":null,"extra":{"a":[1]}}"#,
            r#"{"choices":[{"index":null,"delta":null,"logprobs":null,"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null,"tool_calls":null,"role":"assistant"},"finish_reason":"stop"}]}"#,
        ]);
        assert!(events.is_empty(), "{events:?}");
        assert_eq!(response.id.as_deref(), Some("x"));
    }

    #[test]
    fn the_usage_and_an_error_are_handed_back() {
        let mut acc = Accumulator::new("m".into());
        let mut out = VecDeque::new();
        let rest = decode_chunk(
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
            &mut acc,
            &mut out,
        )
        .unwrap();
        assert_eq!(rest.usage.map(|u| u.output_tokens), Some(4));
        let rest =
            decode_chunk(r#"{"error":{"message":"overloaded"}}"#, &mut acc, &mut out).unwrap();
        assert_eq!(rest.error.unwrap()["message"], "overloaded");
    }

    #[test]
    fn malformed_chunks_are_errors() {
        let mut acc = Accumulator::new("m".into());
        let mut out = VecDeque::new();
        for bad in [
            "[]",
            r#"{"choices":{}}"#,
            r#"{"choices":[{"index":"0"}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":3}}]}"#,
            r#"{"choices":[]} x"#,
        ] {
            assert!(decode_chunk(bad, &mut acc, &mut out).is_err(), "{bad}");
        }
    }
}
