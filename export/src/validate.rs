//! An ATIF validator written from the published rules (harbor RFC 0001 and
//! the `harbor.models.trajectories` models up to ATIF-v1.7): closed objects
//! (no unknown keys), required fields and their types, `step_id`s
//! sequential from 1, ISO 8601 timestamps, `source` one of system / user /
//! agent, agent-only fields only on agent steps, the v1.7 `llm_call_count`
//! rule, every observation result's `source_call_id` one of its step's
//! `tool_call_id`s, non-negative counts, and embedded subagent trajectories
//! valid on their own with unique `trajectory_id`s.

use std::collections::HashSet;

use serde_json::{Map, Value};

const VERSIONS: [&str; 8] =
    ["ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7"];

/// What is wrong with a trajectory, each prefixed by its JSON path; empty when valid.
pub fn validate(trajectory: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    trajectory_rules(trajectory, "$", false, &mut errors);
    errors
}

fn trajectory_rules(t: &Value, at: &str, embedded: bool, errors: &mut Vec<String>) {
    let Some(o) = object(t, at, errors) else { return };
    closed(
        o,
        at,
        &[
            "schema_version",
            "session_id",
            "trajectory_id",
            "agent",
            "steps",
            "notes",
            "final_metrics",
            "continued_trajectory_ref",
            "extra",
            "subagent_trajectories",
        ],
        errors,
    );
    match o.get("schema_version").and_then(Value::as_str) {
        Some(v) if VERSIONS.contains(&v) => {}
        other => errors.push(format!("{at}.schema_version: {other:?} is not an ATIF version up to ATIF-v1.7")),
    }
    optional_str(o, "session_id", at, errors);
    optional_str(o, "trajectory_id", at, errors);
    optional_str(o, "notes", at, errors);
    optional_str(o, "continued_trajectory_ref", at, errors);
    optional_object(o, "extra", at, errors);
    if embedded && !o.get("trajectory_id").is_some_and(Value::is_string) {
        errors.push(format!("{at}.trajectory_id: required on an embedded subagent trajectory"));
    }
    match o.get("agent") {
        Some(agent) => agent_rules(agent, &format!("{at}.agent"), errors),
        None => errors.push(format!("{at}.agent: required")),
    }
    match o.get("steps").and_then(Value::as_array) {
        Some(steps) if steps.is_empty() => errors.push(format!("{at}.steps: at least one step")),
        Some(steps) => {
            for (i, step) in steps.iter().enumerate() {
                step_rules(step, i, &format!("{at}.steps[{i}]"), errors);
            }
        }
        None => errors.push(format!("{at}.steps: required, an array")),
    }
    if let Some(m) = o.get("final_metrics") {
        let p = format!("{at}.final_metrics");
        if let Some(m) = object(m, &p, errors) {
            closed(
                m,
                &p,
                &[
                    "total_prompt_tokens",
                    "total_completion_tokens",
                    "total_cached_tokens",
                    "total_cost_usd",
                    "total_steps",
                    "extra",
                ],
                errors,
            );
            for key in ["total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps"] {
                optional_count(m, key, &p, errors);
            }
            optional_number(m, "total_cost_usd", &p, errors);
            optional_object(m, "extra", &p, errors);
        }
    }
    if let Some(subs) = o.get("subagent_trajectories") {
        let p = format!("{at}.subagent_trajectories");
        match subs.as_array() {
            Some(subs) => {
                let mut seen = HashSet::new();
                for (i, sub) in subs.iter().enumerate() {
                    let q = format!("{p}[{i}]");
                    trajectory_rules(sub, &q, true, errors);
                    if let Some(id) = sub.get("trajectory_id").and_then(Value::as_str)
                        && !seen.insert(id.to_string())
                    {
                        errors.push(format!("{q}.trajectory_id: {id:?} is not unique"));
                    }
                }
            }
            None => errors.push(format!("{p}: an array")),
        }
    }
}

fn agent_rules(agent: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(o) = object(agent, at, errors) else { return };
    closed(o, at, &["name", "version", "model_name", "tool_definitions", "extra"], errors);
    required_str(o, "name", at, errors);
    required_str(o, "version", at, errors);
    optional_str(o, "model_name", at, errors);
    optional_object(o, "extra", at, errors);
    if let Some(defs) = o.get("tool_definitions")
        && !defs.as_array().is_some_and(|a| a.iter().all(Value::is_object))
    {
        errors.push(format!("{at}.tool_definitions: an array of objects"));
    }
}

fn step_rules(step: &Value, index: usize, at: &str, errors: &mut Vec<String>) {
    let Some(o) = object(step, at, errors) else { return };
    closed(
        o,
        at,
        &[
            "step_id",
            "timestamp",
            "source",
            "model_name",
            "reasoning_effort",
            "message",
            "reasoning_content",
            "tool_calls",
            "observation",
            "metrics",
            "is_copied_context",
            "llm_call_count",
            "extra",
        ],
        errors,
    );
    match o.get("step_id").and_then(Value::as_u64) {
        Some(id) if id == index as u64 + 1 => {}
        other => errors.push(format!("{at}.step_id: expected {} (sequential from 1), got {other:?}", index + 1)),
    }
    if let Some(ts) = o.get("timestamp") {
        match ts.as_str() {
            Some(text) if crate::time::unix_nanos(text).is_some() => {}
            _ => errors.push(format!("{at}.timestamp: {ts} is not an ISO 8601 timestamp")),
        }
    }
    let source = o.get("source").and_then(Value::as_str);
    if !matches!(source, Some("system" | "user" | "agent")) {
        errors.push(format!("{at}.source: {source:?} is not system, user or agent"));
    }
    match o.get("message") {
        Some(Value::String(_)) => {}
        Some(Value::Array(parts)) => {
            for (i, part) in parts.iter().enumerate() {
                content_part(part, &format!("{at}.message[{i}]"), errors);
            }
        }
        _ => errors.push(format!("{at}.message: required, a string or an array of content parts")),
    }
    optional_str(o, "model_name", at, errors);
    optional_str(o, "reasoning_content", at, errors);
    optional_object(o, "extra", at, errors);
    if let Some(v) = o.get("reasoning_effort")
        && !(v.is_string() || v.is_number())
    {
        errors.push(format!("{at}.reasoning_effort: a string or a number"));
    }
    if let Some(v) = o.get("is_copied_context")
        && !v.is_boolean()
    {
        errors.push(format!("{at}.is_copied_context: a boolean"));
    }
    optional_count(o, "llm_call_count", at, errors);
    if source != Some("agent") {
        for field in ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] {
            if o.get(field).is_some_and(|v| !v.is_null()) {
                errors.push(format!("{at}.{field}: only on agent steps, but source is {source:?}"));
            }
        }
    }
    if source == Some("agent") && o.get("llm_call_count").and_then(Value::as_u64) == Some(0) {
        for field in ["metrics", "reasoning_content"] {
            if o.get(field).is_some_and(|v| !v.is_null()) {
                errors.push(format!("{at}.{field}: must be absent when llm_call_count is 0"));
            }
        }
    }
    let mut call_ids = HashSet::new();
    if let Some(calls) = o.get("tool_calls") {
        match calls.as_array() {
            Some(calls) => {
                for (i, call) in calls.iter().enumerate() {
                    let p = format!("{at}.tool_calls[{i}]");
                    let Some(c) = object(call, &p, errors) else { continue };
                    closed(c, &p, &["tool_call_id", "function_name", "arguments", "extra"], errors);
                    required_str(c, "tool_call_id", &p, errors);
                    required_str(c, "function_name", &p, errors);
                    if !c.get("arguments").is_some_and(Value::is_object) {
                        errors.push(format!("{p}.arguments: required, an object"));
                    }
                    optional_object(c, "extra", &p, errors);
                    if let Some(id) = c.get("tool_call_id").and_then(Value::as_str) {
                        call_ids.insert(id.to_string());
                    }
                }
            }
            None => errors.push(format!("{at}.tool_calls: an array")),
        }
    }
    if let Some(observation) = o.get("observation") {
        let p = format!("{at}.observation");
        if let Some(obs) = object(observation, &p, errors) {
            closed(obs, &p, &["results"], errors);
            match obs.get("results").and_then(Value::as_array) {
                Some(results) => {
                    for (i, result) in results.iter().enumerate() {
                        let q = format!("{p}.results[{i}]");
                        let Some(r) = object(result, &q, errors) else { continue };
                        closed(r, &q, &["source_call_id", "content", "subagent_trajectory_ref", "extra"], errors);
                        match r.get("source_call_id") {
                            None | Some(Value::Null) => {}
                            Some(Value::String(id)) if call_ids.contains(id) => {}
                            Some(id) => errors.push(format!(
                                "{q}.source_call_id: {id} is not a tool_call_id of step {}'s tool_calls",
                                index + 1
                            )),
                        }
                        match r.get("content") {
                            None | Some(Value::Null) | Some(Value::String(_)) => {}
                            Some(Value::Array(parts)) => {
                                for (j, part) in parts.iter().enumerate() {
                                    content_part(part, &format!("{q}.content[{j}]"), errors);
                                }
                            }
                            Some(_) => errors.push(format!("{q}.content: a string or an array of content parts")),
                        }
                        optional_object(r, "extra", &q, errors);
                        if let Some(refs) = r.get("subagent_trajectory_ref")
                            && !refs.as_array().is_some_and(|a| a.iter().all(Value::is_object))
                        {
                            errors.push(format!("{q}.subagent_trajectory_ref: an array of objects"));
                        }
                    }
                }
                None => errors.push(format!("{p}.results: required, an array")),
            }
        }
    }
    if let Some(metrics) = o.get("metrics") {
        let p = format!("{at}.metrics");
        if let Some(m) = object(metrics, &p, errors) {
            closed(
                m,
                &p,
                &[
                    "prompt_tokens",
                    "completion_tokens",
                    "cached_tokens",
                    "cost_usd",
                    "prompt_token_ids",
                    "completion_token_ids",
                    "logprobs",
                    "extra",
                ],
                errors,
            );
            for key in ["prompt_tokens", "completion_tokens", "cached_tokens"] {
                optional_count(m, key, &p, errors);
            }
            optional_number(m, "cost_usd", &p, errors);
            optional_object(m, "extra", &p, errors);
        }
    }
}

fn content_part(part: &Value, at: &str, errors: &mut Vec<String>) {
    match part.get("type").and_then(Value::as_str) {
        Some("text") if part.get("text").is_some_and(Value::is_string) => {}
        Some("image" | "audio") if part.get("source").is_some_and(Value::is_object) => {}
        other => errors
            .push(format!("{at}: a content part of type text (with text) or image/audio (with source), not {other:?}")),
    }
}

fn object<'v>(value: &'v Value, at: &str, errors: &mut Vec<String>) -> Option<&'v Map<String, Value>> {
    let o = value.as_object();
    if o.is_none() {
        errors.push(format!("{at}: an object"));
    }
    o
}

fn closed(o: &Map<String, Value>, at: &str, allowed: &[&str], errors: &mut Vec<String>) {
    for key in o.keys() {
        if !allowed.contains(&key.as_str()) {
            errors.push(format!("{at}.{key}: not an ATIF field (put it in extra)"));
        }
    }
}

fn required_str(o: &Map<String, Value>, key: &str, at: &str, errors: &mut Vec<String>) {
    if !o.get(key).is_some_and(Value::is_string) {
        errors.push(format!("{at}.{key}: required, a string"));
    }
}

fn optional_str(o: &Map<String, Value>, key: &str, at: &str, errors: &mut Vec<String>) {
    if o.get(key).is_some_and(|v| !v.is_string() && !v.is_null()) {
        errors.push(format!("{at}.{key}: a string"));
    }
}

fn optional_object(o: &Map<String, Value>, key: &str, at: &str, errors: &mut Vec<String>) {
    if o.get(key).is_some_and(|v| !v.is_object() && !v.is_null()) {
        errors.push(format!("{at}.{key}: an object"));
    }
}

fn optional_count(o: &Map<String, Value>, key: &str, at: &str, errors: &mut Vec<String>) {
    if o.get(key).is_some_and(|v| !v.is_null() && !v.is_u64()) {
        errors.push(format!("{at}.{key}: a non-negative integer"));
    }
}

fn optional_number(o: &Map<String, Value>, key: &str, at: &str, errors: &mut Vec<String>) {
    if o.get(key).is_some_and(|v| !v.is_null() && !v.is_number()) {
        errors.push(format!("{at}.{key}: a number"));
    }
}

#[cfg(test)]
mod tests {
    use super::validate;
    use serde_json::json;

    #[test]
    fn the_published_rules_are_enforced() {
        let good = json!({
            "schema_version": "ATIF-v1.7", "session_id": "s", "agent": {"name": "a", "version": "1"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "hi", "timestamp": "2026-01-01T00:00:00Z"},
                {"step_id": 2, "source": "agent", "message": "", "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
                 "observation": {"results": [{"source_call_id": "c", "content": "x"}]}}
            ]
        });
        assert_eq!(validate(&good), Vec::<String>::new());
        let mut bad = good.clone();
        bad["steps"][1]["step_id"] = json!(3);
        bad["steps"][1]["observation"]["results"][0]["source_call_id"] = json!("other");
        bad["steps"][0]["model_name"] = json!("m");
        bad["steps"][0]["timestamp"] = json!("yesterday");
        bad["steps"][1]["surprise"] = json!(1);
        bad["schema_version"] = json!("ATIF-v2");
        bad["agent"] = json!({"name": "a"});
        let errors = validate(&bad);
        for expected in [
            "$.steps[1].step_id: expected 2",
            "source_call_id: \"other\" is not a tool_call_id of step 2",
            "$.steps[0].model_name: only on agent steps",
            "$.steps[0].timestamp",
            "$.steps[1].surprise: not an ATIF field",
            "$.schema_version",
            "$.agent.version: required",
        ] {
            assert!(errors.iter().any(|e| e.contains(expected)), "{expected} not in {errors:#?}");
        }
        let mut empty = good;
        empty["steps"] = json!([]);
        assert_eq!(validate(&empty), ["$.steps: at least one step"]);
    }
}
