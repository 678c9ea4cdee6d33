package io.pg2lite.source.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pg2lite.source.config.ConfigProblem;
import io.pg2lite.source.config.SourceConfig;
import io.pg2lite.source.lineage.SlotLoss;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerRequirementsTest {
  private static SourceConfig config(String hosts, boolean failover) {
    Map<String, String> m = new HashMap<>();
    m.put("database.hostname", hosts);
    m.put("database.dbname", "app");
    m.put("database.user", "u");
    m.put("topic", "changes");
    m.put("kafka.bootstrap.servers", "k:9092");
    m.put("slot.name", "s1");
    m.put("slot.failover", String.valueOf(failover));
    return new SourceConfig(m);
  }

  private static ServerRequirements.Facts facts(int versionNum, String version, String walLevel, String standbys) {
    return new ServerRequirements.Facts("pg1:5432", versionNum, version, walLevel, standbys);
  }

  @Test
  void aServerBelow15IsRefusedNamingItsVersion() {
    List<ConfigProblem> p = ServerRequirements.problems(facts(140011, "14.11", "logical", null));
    assertEquals(1, p.size());
    assertEquals(SourceConfig.HOST_CONFIG, p.get(0).field());
    assertEquals("pg2lite needs PostgreSQL 15 or newer; Postgres at pg1:5432 runs 14.11", p.get(0).message());
    assertTrue(ServerRequirements.problems(facts(150006, "15.6", "logical", null)).isEmpty());
  }

  @Test
  void walLevelBelowLogicalIsRefusedNamingTheSetting() {
    List<ConfigProblem> p = ServerRequirements.problems(facts(170002, "17.2", "replica", ""));
    assertEquals(1, p.size());
    assertTrue(p.get(0).message().startsWith("Postgres at pg1:5432 runs with wal_level=replica; logical "
        + "replication needs wal_level=logical"), p.get(0).message());
  }

  @Test
  void aHostListWarnsOfWhatAFailoverWouldLack() {
    SourceConfig list = config("pg1,pg2", true);
    List<String> w = ServerRequirements.failoverWarnings(list, facts(160003, "16.3", "logical", null), null);
    assertEquals(1, w.size());
    assertTrue(w.get(0).contains("runs PostgreSQL 16.3: slots are synchronized to standbys only from PostgreSQL 17"),
        w.get(0));
    w = ServerRequirements.failoverWarnings(list, facts(170002, "17.2", "logical", ""), true);
    assertEquals(1, w.size());
    assertTrue(w.get(0).contains("synchronized_standby_slots is empty on Postgres at pg1:5432"), w.get(0));
    assertTrue(ServerRequirements.failoverWarnings(list, facts(170002, "17.2", "logical", "sb1"), true).isEmpty());
    w = ServerRequirements.failoverWarnings(list, facts(170002, "17.2", "logical", "sb1"), false);
    assertEquals(1, w.size());
    assertTrue(w.get(0).contains("is not a failover slot") && w.get(0).contains("ALTER_REPLICATION_SLOT s1"), w.get(0));
    w = ServerRequirements.failoverWarnings(config("pg1,pg2", false), facts(170002, "17.2", "logical", "sb1"), false);
    assertTrue(w.size() == 1 && w.get(0).contains("slot.failover=false"), w.toString());
  }

  @Test
  void oneHostWarnsOnlyOfItsSlot() {
    SourceConfig one = config("pg1", true);
    assertTrue(ServerRequirements.failoverWarnings(one, facts(160003, "16.3", "logical", null), null).isEmpty());
    assertTrue(ServerRequirements.failoverWarnings(one, facts(170002, "17.2", "logical", ""), true).isEmpty());
    assertEquals(1, ServerRequirements.failoverWarnings(one, facts(170002, "17.2", "logical", ""), false).size());
  }

  @Test
  void aMissingSlotNamesTheServerAndWhatAFailoverNeeds() {
    String m = SlotLoss.missing("s1", "pg2:5433, on WAL timeline 2: a standby promoted (or a restore)");
    assertTrue(m.startsWith("replication slot s1 is missing on pg2:5433, on WAL timeline 2: a standby promoted"), m);
    assertTrue(m.contains("failover slot (PostgreSQL 17+, slot.failover=true)"), m);
    assertTrue(m.contains("sync_replication_slots = on") && m.contains("synchronized_standby_slots"), m);
  }
}
