package io.pg2lite.testkit.connect;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pg2lite.testkit.support.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small client for the Kafka Connect REST API, the way operators drive a cluster: PUT a config,
 * wait for RUNNING (or fail fast with the task's trace), pause, resume, restart, delete, validate.
 */
public final class ConnectRestClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final URI base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public ConnectRestClient(URI base) {
    this.base = base;
  }

  /** A response that is not 2xx. */
  public static final class RestException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    RestException(String request, int status, String body) {
      super(request + " answered HTTP " + status + ": " + body);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  /** Waits until the worker answers {@code GET /} and has joined its group. */
  void awaitReady() {
    Await.until("Connect REST API at " + base, Duration.ofSeconds(60), () -> {
      send("GET", "connectors", null);
      return true;
    });
  }

  /** {@code GET} of any path of the worker's REST API (a REST extension's resource), as JSON. */
  public JsonNode get(String path) {
    return send("GET", path, null);
  }

  /** Creates or updates a connector: {@code PUT /connectors/{name}/config}. */
  public void putConnector(String name, Map<String, String> config) {
    send("PUT", "connectors/" + enc(name) + "/config", config);
  }

  public ConnectorStatus status(String name) {
    JsonNode n = send("GET", "connectors/" + enc(name) + "/status", null);
    List<ConnectorStatus.TaskStatus> tasks = new ArrayList<>();
    for (JsonNode t : n.path("tasks")) {
      tasks.add(new ConnectorStatus.TaskStatus(t.path("id").asInt(), t.path("state").asText(), text(t, "trace"),
          text(t, "worker_id")));
    }
    JsonNode c = n.path("connector");
    return new ConnectorStatus(name, c.path("state").asText(), text(c, "trace"), tasks, text(c, "worker_id"));
  }

  /**
   * Waits until the connector and all its tasks are RUNNING. Fails at once, with the stack
   * trace, when the connector or a task FAILED: waiting out the timeout would hide the cause.
   */
  public ConnectorStatus awaitRunning(String name, Duration timeout) {
    return Await.value("connector " + name + " to be RUNNING", timeout, () -> {
      ConnectorStatus s = statusOrNull(name);
      if (s == null) {
        return null;
      }
      if (s.failure() != null) {
        throw new FailedConnectorError(s.failure());
      }
      return s.isRunning() ? s : null;
    });
  }

  /** Waits until the connector or one of its tasks FAILED; returns the status with the trace. */
  public ConnectorStatus awaitFailed(String name, Duration timeout) {
    return Await.value("connector " + name + " or a task to FAIL", timeout, () -> {
      ConnectorStatus s = statusOrNull(name);
      return s != null && s.failure() != null ? s : null;
    });
  }

  /** Thrown out of a wait when the connector failed: not retried by {@link Await}. */
  public static final class FailedConnectorError extends AssertionError {
    private static final long serialVersionUID = 1L;

    FailedConnectorError(String message) {
      super(message);
    }
  }

  private ConnectorStatus statusOrNull(String name) {
    try {
      return status(name);
    } catch (RestException e) {
      if (e.status() == 404) {
        return null; // not yet known to this worker
      }
      throw e;
    }
  }

  public void pause(String name) {
    send("PUT", "connectors/" + enc(name) + "/pause", null);
  }

  public void resume(String name) {
    send("PUT", "connectors/" + enc(name) + "/resume", null);
  }

  /**
   * Stops the connector and shuts its tasks down, keeping its config and offsets:
   * {@code PUT /connectors/{name}/stop}; {@link #resume} starts new tasks. Unlike {@link #restart},
   * whose effect a test cannot see, {@link #awaitStopped} tells when the old tasks are gone.
   */
  public void stop(String name) {
    send("PUT", "connectors/" + enc(name) + "/stop", null);
  }

  /** Waits until the connector is STOPPED with no task left. */
  public ConnectorStatus awaitStopped(String name, Duration timeout) {
    return Await.value("connector " + name + " to be STOPPED without tasks", timeout, () -> {
      ConnectorStatus s = statusOrNull(name);
      return s != null && "STOPPED".equals(s.state()) && s.tasks().isEmpty() ? s : null;
    });
  }

  /** Restarts the connector and its tasks. */
  public void restart(String name) {
    send("POST", "connectors/" + enc(name) + "/restart?includeTasks=true", null);
  }

  public void delete(String name) {
    send("DELETE", "connectors/" + enc(name), null);
  }

  public List<String> connectors() {
    List<String> out = new ArrayList<>();
    send("GET", "connectors", null).forEach(n -> out.add(n.asText()));
    return out;
  }

  /**
   * The offsets Connect has stored for a connector ({@code GET /connectors/{name}/offsets}), one
   * map per source partition, values as JSON text. What a restarted task resumes from: a test
   * that stops a source waits for these instead of sleeping past the offset flush interval.
   */
  public List<Map<String, String>> offsets(String name) {
    List<Map<String, String>> out = new ArrayList<>();
    for (JsonNode o : send("GET", "connectors/" + enc(name) + "/offsets", null).path("offsets")) {
      Map<String, String> m = new LinkedHashMap<>();
      o.path("offset").fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
      out.add(m);
    }
    return out;
  }

  /** Class names of the connector plugins the worker loaded. */
  public List<String> connectorPlugins() {
    List<String> out = new ArrayList<>();
    send("GET", "connector-plugins", null).forEach(n -> out.add(n.path("class").asText()));
    return out;
  }

  /**
   * Validates a config without creating the connector; returns the errors per field (fields
   * without errors are left out).
   */
  public Map<String, List<String>> validate(String connectorClass, Map<String, String> config) {
    String simple = connectorClass.substring(connectorClass.lastIndexOf('.') + 1);
    JsonNode n = send("PUT", "connector-plugins/" + enc(simple) + "/config/validate", config);
    Map<String, List<String>> errors = new LinkedHashMap<>();
    for (JsonNode c : n.path("configs")) {
      JsonNode v = c.path("value");
      if (v.path("errors").size() > 0) {
        List<String> list = new ArrayList<>();
        v.path("errors").forEach(e -> list.add(e.asText()));
        errors.put(v.path("name").asText(), list);
      }
    }
    return errors;
  }

  private JsonNode send(String method, String path, Object body) {
    try {
      HttpRequest.Builder req = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
          .header("Accept", "application/json");
      if (body == null) {
        req.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        req.header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
      }
      HttpResponse<String> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
      if (resp.statusCode() / 100 != 2) {
        throw new RestException(method + " " + path, resp.statusCode(), resp.body());
      }
      return resp.body().isEmpty() ? JSON.nullNode() : JSON.readTree(resp.body());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
