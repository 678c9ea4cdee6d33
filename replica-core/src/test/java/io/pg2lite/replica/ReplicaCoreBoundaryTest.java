package io.pg2lite.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The replica core uses no Kafka or Connect type: the sink task and the followers both run it, each
 * feeding it records its own way (Connect's batches, a plain consumer), so their types stay in
 * those adapters.
 */
class ReplicaCoreBoundaryTest {
  private static final Path MAIN = Path.of("src/main/java/io/pg2lite/replica");

  @Test
  void theReplicaCoreNamesNoKafkaConnectOrSinkType() throws IOException {
    List<String> offenders;
    try (Stream<Path> files = walk(MAIN)) {
      offenders = files.filter(f -> f.toString().endsWith(".java"))
          .filter(f -> read(f).contains("org.apache.kafka") || read(f).contains("io.pg2lite.sink"))
          .map(Path::toString).toList();
    }
    assertEquals(List.of(), offenders);
  }

  private static Stream<Path> walk(Path dir) {
    try {
      return Files.walk(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
