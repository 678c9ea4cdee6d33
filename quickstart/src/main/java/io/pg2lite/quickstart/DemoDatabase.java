package io.pg2lite.quickstart;

import io.pg2lite.testkit.postgres.TestDatabase;
import java.sql.SQLException;

/**
 * The demo's Postgres side: a shop with customers (published from the start) and orders (10,000
 * rows that exist before the table joins the publication, so they reach the replica through a
 * backfill), and a workload that changes both every second, adds a column at tick 5 and adds the
 * orders table to the publication at tick 8.
 */
final class DemoDatabase {
  static final String PUBLICATION = "pg2lite";
  static final int ADD_COLUMN_TICK = 5;
  static final int PUBLISH_ORDERS_TICK = 8;
  static final String CUSTOMERS = "SELECT id, name, email, tier FROM customer ORDER BY id";
  static final String ORDERS = "SELECT id, customer_id, amount, status FROM orders ORDER BY id";

  private final TestDatabase db;
  private boolean columnAdded;
  private boolean ordersPublished;

  DemoDatabase(TestDatabase db) {
    this.db = db;
  }

  TestDatabase db() {
    return db;
  }

  void create() throws SQLException {
    db.execute("CREATE TABLE customer (id int PRIMARY KEY, name text NOT NULL, email text)",
        "INSERT INTO customer SELECT g, 'customer ' || g, 'c' || g || '@example.com' FROM generate_series(1, 100) g",
        "CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL, amount numeric(10,2), status text)",
        "INSERT INTO orders SELECT g, 1 + g % 100, (g % 997) / 3.0, 'new' FROM generate_series(1, 10000) g",
        "CREATE PUBLICATION " + PUBLICATION + " FOR TABLE customer");
  }

  /** One second of workload; returns a line saying what happened, or null for routine changes. */
  String tick(int tick) throws SQLException {
    int c = 100 + tick;
    db.execute("INSERT INTO customer (id, name, email) VALUES (" + c + ", 'customer " + c + "', 'c" + c + "@example.com')",
        "UPDATE customer SET email = 'new" + tick + "@example.com' WHERE id = " + (1 + tick % 100),
        "INSERT INTO orders SELECT 10000 + " + tick + " * 5 + g, " + c + ", g * 2.5, 'new' FROM generate_series(1, 5) g",
        "UPDATE orders SET status = 'shipped' WHERE id = " + (1 + tick * 7 % 10000),
        "DELETE FROM orders WHERE id = " + (5000 + tick));
    if (tick == ADD_COLUMN_TICK) {
      db.execute("ALTER TABLE customer ADD COLUMN tier text DEFAULT 'standard'");
      columnAdded = true;
      return "schema change: ALTER TABLE customer ADD COLUMN tier text DEFAULT 'standard'";
    }
    if (tick == PUBLISH_ORDERS_TICK) {
      db.execute("ALTER PUBLICATION " + PUBLICATION + " ADD TABLE orders");
      ordersPublished = true;
      return "publication: ALTER PUBLICATION pg2lite ADD TABLE orders (its existing rows are backfilled)";
    }
    return null;
  }

  /** A table's row count in Postgres now (-1 when it cannot be read). */
  long rowCount(String table) {
    try {
      return Long.parseLong(db.queryColumn("SELECT count(*) FROM \"" + table.replace("\"", "\"\"") + "\"").get(0));
    } catch (SQLException | RuntimeException e) {
      return -1;
    }
  }

  boolean complete() {
    return columnAdded && ordersPublished;
  }
}
