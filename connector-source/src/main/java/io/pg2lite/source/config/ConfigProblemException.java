package io.pg2lite.source.config;

import org.apache.kafka.common.config.ConfigException;

/**
 * A {@link ConfigProblem} met while using the config rather than parsing it (a certificate file
 * that does not exist, a CA that did not sign the server's certificate). It is a
 * {@link ConfigException}, so the task fails for good instead of retrying: only a changed setting
 * heals it. {@code validate()} puts its problem on the field it names.
 */
public final class ConfigProblemException extends ConfigException {
  private static final long serialVersionUID = 1L;

  private final transient ConfigProblem problem;

  public ConfigProblemException(ConfigProblem problem) {
    super(problem.message());
    this.problem = problem;
  }

  public ConfigProblemException(String field, String message) {
    this(new ConfigProblem(field, message));
  }

  public ConfigProblem problem() {
    return problem;
  }
}
