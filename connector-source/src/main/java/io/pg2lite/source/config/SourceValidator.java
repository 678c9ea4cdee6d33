package io.pg2lite.source.config;

import java.util.List;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

/**
 * The config side of {@code validate()}, over the properties only: whether the fields are valid
 * enough for the live checks to run, and the attaching of what those checks found to the fields'
 * {@link ConfigValue}s. The live checks themselves live beside the code that owns each system:
 * {@link io.pg2lite.source.postgres.PostgresProbe} and {@link io.pg2lite.source.kafka.ChangeLogProbe}.
 */
public final class SourceValidator {
  private final Config config;

  public SourceValidator(Config config) {
    this.config = config;
  }

  /** False when a field already has an error: fix the fields first; live checks with a broken config only add noise. */
  public boolean fieldsValid() {
    return config.configValues().stream().allMatch(v -> v.errorMessages().isEmpty());
  }

  /** Adds each problem to its field's errors. */
  public void report(List<ConfigProblem> problems) {
    for (ConfigProblem p : problems) {
      for (ConfigValue v : config.configValues()) {
        if (v.name().equals(p.field())) {
          v.addErrorMessage(p.message());
          break;
        }
      }
    }
  }
}
