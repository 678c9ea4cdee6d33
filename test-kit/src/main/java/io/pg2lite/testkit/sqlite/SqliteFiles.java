package io.pg2lite.testkit.sqlite;

import io.pg2lite.testkit.support.DirectoryTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/** Temporary SQLite replica files for tests, removed (with their -wal and -shm files) on close. */
public final class SqliteFiles implements AutoCloseable {
  private final Path dir;
  private final AtomicInteger files = new AtomicInteger();

  public SqliteFiles() throws IOException {
    this.dir = Files.createTempDirectory("pg2lite-sqlite-");
  }

  public Path directory() {
    return dir;
  }

  /** A path for a new replica file that does not exist yet. */
  public Path newFile(String prefix) {
    return dir.resolve(prefix + "-" + files.incrementAndGet() + ".db");
  }

  /** Opens a plain JDBC connection to {@code file} (created if missing). */
  public static Connection open(Path file) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  @Override
  public void close() throws IOException {
    DirectoryTrees.delete(dir);
  }
}
