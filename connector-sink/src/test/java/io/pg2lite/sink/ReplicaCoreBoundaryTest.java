package io.pg2lite.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The replica core ({@code replica}, {@code apply} and {@code lineage}) uses no Kafka type, so that
 * a replica follower outside Kafka Connect can reuse it: Connect's types stay in the task and
 * connector.
 */
class ReplicaCoreBoundaryTest {
  private static final Path MAIN = Path.of("src/main/java/io/pg2lite/sink");

  @Test
  void theReplicaCoreNamesNoKafkaType() throws IOException {
    List<String> offenders;
    try (Stream<Path> files = Stream.of("replica", "apply", "lineage").flatMap(ReplicaCoreBoundaryTest::walk)) {
      offenders = files.filter(f -> f.toString().endsWith(".java")).filter(f -> read(f).contains("org.apache.kafka"))
          .map(Path::toString).toList();
    }
    assertEquals(List.of(), offenders);
  }

  private static Stream<Path> walk(String pkg) {
    try {
      return Files.walk(MAIN.resolve(pkg));
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
