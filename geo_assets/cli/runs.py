"""What a finished Dagster run tells the command line (shared by ``commands`` and ``evaluate``)."""

import dagster as dg


def failure_messages(result: dg.ExecuteInProcessResult) -> list[str]:
    """One line per failed step: the asset's own failure description, else the error's last line."""
    messages = []
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data is not None:
            data = event.step_failure_data
            if data.user_failure_data is not None and data.user_failure_data.description:
                messages.append(data.user_failure_data.description)
            elif data.error is not None:
                messages.append(f"{event.step_key}: {data.error.message.strip().splitlines()[-1]}")
    return messages
