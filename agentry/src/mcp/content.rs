//! Tool results between MCP and agentry: a server's `CallToolResult` as a [`ToolOutput`]
//! (client side) and a tool's [`ToolOutput`] as a `CallToolResult` (server side).

use rmcp::model::{CallToolResult, ContentBlock as McpBlock};
#[cfg(feature = "mcp-client")]
use rmcp::model::{EmbeddedResource, ResourceContents};
use serde_json::Value;

use crate::message::{ContentBlock, ImageSource};
#[cfg(feature = "mcp-client")]
use crate::tool::{Artifact, ToolError};
use crate::tool::{ToolCallError, ToolOutput};

/// A tool result's `structuredContent`, kept as the [`ToolOutput`]'s artifact.
///
/// On the client, an MCP tool's `structuredContent` is here
/// (`output.artifact::<StructuredContent>()`); when the server sent no content blocks, the
/// model reads the JSON as text. On the server, a tool whose output carries this artifact
/// answers with it as `structuredContent` (how an agent served as a tool returns its typed
/// output).
#[derive(Clone, Debug, PartialEq)]
pub struct StructuredContent(pub Value);

/// Maps a server's tool result to what the model reads. `isError: true` becomes
/// [`ToolCallError::Failed`] with the content's text.
#[cfg(feature = "mcp-client")]
pub(crate) fn from_mcp(tool: &str, result: CallToolResult) -> Result<ToolOutput, ToolCallError> {
    let mut content = Vec::with_capacity(result.content.len());
    for block in result.content {
        content.push(block_from_mcp(block));
    }
    if result.is_error == Some(true) {
        let text: Vec<String> = content
            .iter()
            .filter_map(|b| b.as_text().map(str::to_string))
            .collect();
        let message = if text.is_empty() {
            "the MCP tool reported an error without a message".to_string()
        } else {
            text.join("\n")
        };
        return Err(ToolCallError::failed(tool, ToolError::new(message)));
    }
    let artifact = result.structured_content.map(|value| {
        if content.is_empty() {
            content.push(ContentBlock::text(value.to_string()));
        }
        Artifact::new(StructuredContent(value))
    });
    Ok(ToolOutput { content, artifact })
}

#[cfg(feature = "mcp-client")]
fn block_from_mcp(block: McpBlock) -> ContentBlock {
    match block {
        McpBlock::Text(text) => ContentBlock::text(text.text),
        McpBlock::Image(image) => ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: image.mime_type,
                data: image.data,
            },
        },
        McpBlock::Audio(audio) => media_block(audio.mime_type, audio.data, None),
        McpBlock::Resource(resource) => resource_from_mcp(resource),
        McpBlock::ResourceLink(link) => ContentBlock::text(format!(
            "[resource link: {} ({}){}]",
            link.uri,
            link.name,
            link.description
                .map(|d| format!(" - {d}"))
                .unwrap_or_default()
        )),
        _ => ContentBlock::text("[a content block of a kind this client does not read]"),
    }
}

#[cfg(feature = "mcp-client")]
fn resource_from_mcp(resource: EmbeddedResource) -> ContentBlock {
    match resource.resource {
        ResourceContents::TextResourceContents { uri, text, .. } => {
            ContentBlock::text(format!("[resource {uri}]\n{text}"))
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => media_block(
            mime_type.unwrap_or_else(|| OCTET_STREAM.to_owned()),
            blob,
            file_name(&uri),
        ),
        #[allow(unreachable_patterns)]
        _ => ContentBlock::text("[a resource of a kind this client does not read]"),
    }
}

/// The media type of a blob whose server named none.
#[cfg(feature = "mcp-client")]
const OCTET_STREAM: &str = "application/octet-stream";

/// Base64 media from an MCP server as the SDK's block of its kind: an image, an audio clip
/// (when the format is one [`AudioFormat`](crate::AudioFormat) names) or a file (PDF, audio
/// of another format, anything else), with the file name when the resource's URI gives one.
/// A provider that cannot take the part refuses it before the request
/// ([`ModelError::UnsupportedInput`](crate::model::ModelError::UnsupportedInput)).
#[cfg(feature = "mcp-client")]
fn media_block(media_type: String, data: String, name: Option<String>) -> ContentBlock {
    if media_type.trim().to_ascii_lowercase().starts_with("image/") {
        return ContentBlock::Image {
            source: ImageSource::Base64 { media_type, data },
        };
    }
    if let Some(format) = crate::AudioFormat::from_media_type(&media_type) {
        return ContentBlock::Audio { format, data };
    }
    ContentBlock::File {
        source: crate::media::FileSource::Base64 { media_type, data },
        filename: name,
    }
}

/// The last path segment of a resource URI (`file:///reports/q3.pdf` → `q3.pdf`), if any.
#[cfg(feature = "mcp-client")]
fn file_name(uri: &str) -> Option<String> {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let last = path.rsplit('/').next()?;
    (!last.is_empty() && !last.contains(':')).then(|| last.to_owned())
}

/// Maps a tool's output to an MCP result: text and images as content blocks, a
/// [`StructuredContent`] artifact as `structuredContent`.
#[cfg(feature = "mcp-server")]
pub(crate) fn to_mcp(output: ToolOutput) -> CallToolResult {
    let content = output.content.into_iter().map(block_to_mcp).collect();
    let mut result = CallToolResult::success(content);
    if let Some(StructuredContent(value)) = output
        .artifact
        .as_ref()
        .and_then(|a| a.downcast_ref::<StructuredContent>())
    {
        result.structured_content = Some(value.clone());
    }
    result
}

/// A tool's failure as an MCP tool error (`isError: true`), which the calling model reads.
#[cfg(feature = "mcp-server")]
pub(crate) fn error_to_mcp(error: &ToolCallError) -> CallToolResult {
    CallToolResult::error(vec![McpBlock::text(error.model_message())])
}

#[cfg(feature = "mcp-server")]
fn block_to_mcp(block: ContentBlock) -> McpBlock {
    match block {
        ContentBlock::Text { text, .. } => McpBlock::text(text),
        ContentBlock::Image {
            source: ImageSource::Base64 { media_type, data },
        } => McpBlock::image(data, media_type),
        ContentBlock::Image {
            source: ImageSource::Url { url },
        } => McpBlock::text(format!("[image: {url}]")),
        ContentBlock::File {
            source: crate::media::FileSource::Text { text },
            ..
        } => McpBlock::text(text),
        ContentBlock::File {
            source: crate::media::FileSource::Url { url, .. },
            ..
        } => McpBlock::text(format!("[file: {url}]")),
        ContentBlock::File { .. } => McpBlock::text("[a file this server cannot pass on]"),
        ContentBlock::Audio { format, .. } => McpBlock::text(format!(
            "[{} audio this server cannot pass on]",
            format.as_str()
        )),
        ContentBlock::Reasoning { text, .. } => McpBlock::text(text),
        ContentBlock::Other { value, .. } => McpBlock::text(value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "mcp-client")]
    #[test]
    fn is_error_becomes_a_failed_call_with_the_text() {
        let result = CallToolResult::error(vec![McpBlock::text("no such zone")]);
        let err = from_mcp("get_time", result).unwrap_err();
        assert_eq!(err.to_string(), "tool `get_time` failed: no such zone");
    }

    #[cfg(feature = "mcp-client")]
    #[test]
    fn structured_content_is_the_artifact_and_text_when_alone() {
        let mut result = CallToolResult::success(vec![]);
        result.structured_content = Some(json!({ "hour": 9 }));
        let out = from_mcp("t", result).unwrap();
        assert_eq!(out.text_content(), r#"{"hour":9}"#);
        assert_eq!(
            out.artifact::<StructuredContent>(),
            Some(&StructuredContent(json!({ "hour": 9 })))
        );
    }

    #[cfg(feature = "mcp-client")]
    #[test]
    fn images_and_resources_map_to_blocks() {
        let result = CallToolResult::success(vec![
            McpBlock::image("aGk=", "image/png"),
            McpBlock::embedded_text("file:///a.txt", "alpha"),
        ]);
        let out = from_mcp("t", result).unwrap();
        assert!(matches!(
            &out.content[0],
            ContentBlock::Image { source: ImageSource::Base64 { media_type, data } }
                if media_type == "image/png" && data == "aGk="
        ));
        assert_eq!(
            out.content[1].as_text(),
            Some("[resource file:///a.txt]\nalpha")
        );
    }

    #[cfg(feature = "mcp-client")]
    #[test]
    fn audio_and_blobs_map_to_media_blocks() {
        use crate::AudioFormat;
        use crate::media::FileSource;

        let blob = |uri: &str, mime: Option<&str>| {
            let mut resource = json!({ "uri": uri, "blob": "AAAA" });
            if let Some(mime) = mime {
                resource["mimeType"] = json!(mime);
            }
            json!({ "type": "resource", "resource": resource })
        };
        let audio = |mime: &str| json!({ "type": "audio", "data": "AAAA", "mimeType": mime });
        let result: CallToolResult = serde_json::from_value(json!({ "content": [
            audio("audio/mpeg"),
            audio("audio/opus"),
            blob("file:///docs/report.pdf", Some("application/pdf")),
            blob("data:x", None),
            blob("file:///a/b.png", Some("image/png")),
        ] }))
        .unwrap();
        let out = from_mcp("t", result).unwrap();
        assert_eq!(out.content.len(), 5);
        assert!(
            matches!(&out.content[0], ContentBlock::Audio { format: AudioFormat::Mp3, data } if data == "AAAA")
        );
        assert!(matches!(
            &out.content[1],
            ContentBlock::File { source: FileSource::Base64 { media_type, .. }, filename: None }
                if media_type == "audio/opus"
        ));
        assert!(matches!(
            &out.content[2],
            ContentBlock::File { source: FileSource::Base64 { media_type, .. }, filename: Some(name) }
                if media_type == "application/pdf" && name == "report.pdf"
        ));
        assert!(matches!(
            &out.content[3],
            ContentBlock::File { source: FileSource::Base64 { media_type, .. }, filename: None }
                if media_type == OCTET_STREAM
        ));
        assert!(matches!(&out.content[4], ContentBlock::Image { .. }));
    }

    #[cfg(feature = "mcp-server")]
    #[test]
    fn structured_artifact_goes_out_as_structured_content() {
        let out = ToolOutput {
            content: vec![ContentBlock::text("done")],
            artifact: Some(crate::tool::Artifact::new(StructuredContent(json!([1, 2])))),
        };
        let result = to_mcp(out);
        assert_eq!(result.structured_content, Some(json!([1, 2])));
        assert_eq!(result.is_error, Some(false));
    }
}
