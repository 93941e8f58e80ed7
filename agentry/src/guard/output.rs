//! The output check: output guardrails in order, on the typed output before it is returned.

use super::set::Guards;
use crate::run::RunErrorKind;

/// `output` through every output guardrail for its type, in order, each seeing what the one
/// before let through; a block is the run's error.
pub(crate) async fn check_output<O, C>(
    guards: &Guards<C>,
    mut output: O,
    context: &C,
) -> Result<O, RunErrorKind>
where
    O: Send + 'static,
    C: 'static,
{
    for guard in guards.output::<O>() {
        match guard.check(output, context).await {
            Ok(checked) => output = checked,
            Err(reason) => {
                tracing::debug!(guardrail = guard.name(), %reason, "output blocked by a guardrail");
                return Err(RunErrorKind::Guardrail {
                    name: guard.name().to_string(),
                    reason,
                });
            }
        }
    }
    Ok(output)
}
