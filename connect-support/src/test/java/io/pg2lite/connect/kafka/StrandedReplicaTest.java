package io.pg2lite.connect.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class StrandedReplicaTest {
  @Test
  void theMarkReadsBackAsWritten() {
    StrandedReplica mark = new StrandedReplica("52p5k3k", 1234);
    assertEquals("pg2lite stranded replica-version=52p5k3k needs=1234", mark.metadata());
    assertEquals(Optional.of(mark), StrandedReplica.parse(mark.metadata()));
  }

  @Test
  void anythingElseIsNoMark() {
    for (String other : new String[] {null, "", "pg2lite stranded", "pg2lite stranded replica-version=v needs=",
        "pg2lite stranded replica-version=v needs=-1", "x pg2lite stranded replica-version=v needs=1",
        "pg2lite stranded replica-version=v needs=99999999999999999999"}) {
      assertTrue(StrandedReplica.parse(other).isEmpty(), String.valueOf(other));
    }
  }
}
