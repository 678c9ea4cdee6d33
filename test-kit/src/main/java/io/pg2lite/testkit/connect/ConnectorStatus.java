package io.pg2lite.testkit.connect;

import java.util.List;

/**
 * A connector's status as the REST API reports it: {@code GET /connectors/{name}/status}.
 *
 * @param state RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED or RESTARTING
 * @param trace the connector's stack trace when it failed, else null
 * @param workerId the worker running the connector ({@code host:port} of its REST API), or null
 */
public record ConnectorStatus(String name, String state, String trace, List<TaskStatus> tasks, String workerId) {

  /** One task's status; {@code workerId} is the worker running it ({@code host:port} of its REST API), or null. */
  public record TaskStatus(int id, String state, String trace, String workerId) {}

  /** True when the connector and at least one task run, and no task is in another state. */
  public boolean isRunning() {
    return "RUNNING".equals(state) && !tasks.isEmpty() && tasks.stream().allMatch(t -> "RUNNING".equals(t.state()));
  }

  /** The first failure trace (connector or task), or null when nothing failed. */
  public String failure() {
    if ("FAILED".equals(state)) {
      return "connector " + name + " FAILED:\n" + trace;
    }
    return tasks.stream().filter(t -> "FAILED".equals(t.state())).findFirst()
        .map(t -> "task " + name + "-" + t.id() + " FAILED:\n" + t.trace()).orElse(null);
  }
}
