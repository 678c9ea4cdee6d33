package io.pg2lite.testkit.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seed names one exact workload, across changes of the generator's code: a failure found by the
 * randomized differential test is reproduced by its seed, also after a refactor. The SHA-256 of the
 * scripts of seeds 1–40 (all features, and with some off) is compared with the fingerprints the
 * generator gave when this file was written; a change that alters what a seed generates must say
 * so by writing new ones (docs/fuzzing.md lists seeds run before it as a different workload).
 */
class WorkloadFingerprintTest {
  private static final String FILE = "/fuzz/workload-fingerprints.txt";

  static List<String> fingerprints() throws NoSuchAlgorithmException {
    List<String> out = new ArrayList<>();
    Set<FuzzFeature> some = new HashSet<>(FuzzFeature.all());
    some.remove(FuzzFeature.QUOTED_NAMES);
    some.remove(FuzzFeature.RESTARTS);
    for (int seed = 1; seed <= 40; seed++) {
      for (Set<FuzzFeature> features : List.of(FuzzFeature.all(), some)) {
        byte[] script = WorkloadGenerator.generate(seed, 60, features).script().getBytes(StandardCharsets.UTF_8);
        out.add(seed + (features.size() == FuzzFeature.all().size() ? " all " : " some ")
            + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(script)));
      }
    }
    return out;
  }

  @Test
  void everySeedStillGeneratesItsWorkload() throws Exception {
    String expected;
    try (InputStream in = WorkloadFingerprintTest.class.getResourceAsStream(FILE)) {
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertEquals(expected, String.join("\n", fingerprints()) + "\n",
        "a seed now generates another workload than " + FILE + " records");
  }

  /** Writes the fingerprints file (only when a change of the workloads is meant): {@code main(path)}. */
  public static void main(String[] args) throws IOException, NoSuchAlgorithmException {
    java.nio.file.Files.writeString(java.nio.file.Path.of(args[0]), String.join("\n", fingerprints()) + "\n");
  }
}
