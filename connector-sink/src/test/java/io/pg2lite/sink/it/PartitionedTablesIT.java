package io.pg2lite.sink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pg2lite.testkit.TestStack;
import io.pg2lite.testkit.TestStackExtension;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 32: how a partitioned table reaches the replica, with each setting of the publication's
 * {@code publish_via_partition_root} (operations.md, "Partitioned tables"): its partitions as
 * tables of their own (the default), or one table under the root's name. Rows are copied by the
 * backfill and streamed, and one row moves between partitions on the live stream.
 */
@ExtendWith(TestStackExtension.class)
class PartitionedTablesIT {
  private static final String PG_ROWS = "SELECT id, region, v FROM %s ORDER BY id";
  private static final String LITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'"
      + " AND name LIKE 'orders%' ORDER BY name";

  private static void partitioned(Pipeline p, String publicationOptions) throws Exception {
    p.db.execute("CREATE TABLE orders (id int, region text, v int, PRIMARY KEY (id, region))"
            + " PARTITION BY LIST (region)",
        "CREATE TABLE orders_eu PARTITION OF orders FOR VALUES IN ('eu')",
        "CREATE TABLE orders_us PARTITION OF orders FOR VALUES IN ('us')",
        "INSERT INTO orders VALUES (1, 'eu', 10), (2, 'us', 20)",
        "CREATE PUBLICATION " + p.name + "_pub FOR TABLE orders" + publicationOptions);
  }

  private static void writeLive(Pipeline p) throws Exception {
    p.db.execute("INSERT INTO orders VALUES (3, 'eu', 30), (4, 'us', 40)",
        "UPDATE orders SET region = 'us', v = 11 WHERE id = 1", // moves the row to the other partition
        "DELETE FROM orders WHERE id = 2");
  }

  @Test
  void byDefaultEachPartitionIsATableOfItsOwn(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "part_leaf")) {
      partitioned(p, "");
      p.startSource();
      Path replica = p.files.newFile("leaf");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "orders_us", Pipeline.WAIT);
      writeLive(p);
      for (String t : List.of("orders_eu", "orders_us")) {
        p.awaitSame(replica, String.format(PG_ROWS, t), String.format(PG_ROWS, t), Pipeline.WAIT);
      }
      assertEquals(List.of(List.of("orders_eu"), List.of("orders_us")), Pipeline.replica(replica, LITE_TABLES),
          "the partitions, no table for the root");
      assertEquals(List.of(List.of("1", "us", "11"), List.of("4", "us", "40")),
          Pipeline.replica(replica, String.format(PG_ROWS, "orders_us")), "the moved row is in its new partition");
    }
  }

  @Test
  void throughTheRootThePartitionsAreOneTable(TestStack stack) throws Exception {
    try (Pipeline p = new Pipeline(stack, "part_root")) {
      partitioned(p, " WITH (publish_via_partition_root = true)");
      p.startSource();
      Path replica = p.files.newFile("root");
      p.startSink("a", replica);
      p.awaitBackfilled(replica, "orders", Pipeline.WAIT);
      writeLive(p);
      p.awaitSame(replica, String.format(PG_ROWS, "orders"), String.format(PG_ROWS, "orders"), Pipeline.WAIT);
      assertEquals(List.of(List.of("orders")), Pipeline.replica(replica, LITE_TABLES), "one table, the root's name");
      assertEquals(List.of(List.of("1", "us", "11"), List.of("3", "eu", "30"), List.of("4", "us", "40")),
          Pipeline.replica(replica, String.format(PG_ROWS, "orders")));
    }
  }
}
