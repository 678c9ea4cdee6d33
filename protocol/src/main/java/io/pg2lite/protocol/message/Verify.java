package io.pg2lite.protocol.message;

import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.util.List;
import java.util.Objects;

/**
 * The source's digests of one table, read from a snapshot at {@code snapshot} (issue 29, ADR
 * 0040), for every replica to compare with its own at this record's position. Rows some change
 * after {@code since} (the last commit the log held when the snapshot was asked for) touched are
 * left out on both sides: the source subtracts them ({@code excluded} says how many), a replica
 * counts only rows whose version is at or below {@code since}.
 *
 * @param id the request's id, the same for every table it verifies
 * @param relation the table and its row key
 * @param columns the columns compared, in name order (every published column of the table)
 * @param result {@link Result#COMPARED}, or {@link Result#NOT_COMPARABLE} with {@code reason}
 *     (the table changed shape, was truncated or copied while the source read it)
 * @param keyRange the request's key range (a key of one integer column), or null for every row
 * @param buckets how rows fall into {@code digests}; null unless compared
 * @param digests per bucket: rows and the sum of their hashes; empty unless compared
 * @param excluded rows of the snapshot left out because a change after {@code since} touched them
 */
public record Verify(String id, Relation relation, List<String> columns, Watermark snapshot, Watermark since,
    Result result, String reason, KeyRange keyRange, Buckets buckets, List<Digest> digests, long excluded)
    implements Change {

  public enum Result {
    COMPARED("compared"), NOT_COMPARABLE("not-comparable");

    public final String wire;

    Result(String wire) {
      this.wire = wire;
    }

    public static Result ofWire(String wire) {
      for (Result r : values()) {
        if (r.wire.equals(wire)) {
          return r;
        }
      }
      throw new IllegalArgumentException("a verify result is \"compared\" or \"not-comparable\", not \"" + wire + "\"");
    }
  }

  /** Keys {@code from} to {@code to}, both included. */
  public record KeyRange(long from, long to) {
    public KeyRange {
      if (to < from) {
        throw new IllegalArgumentException("a key range ends at or after its start: " + from + " to " + to);
      }
    }
  }

  /** One bucket's digest: how many rows, and the sum of their row hashes as 32 hexadecimal digits. */
  public record Digest(long rows, String sum) {
    public Digest {
      if (rows < 0 || sum == null || !sum.matches("[0-9a-f]{32}")) {
        throw new IllegalArgumentException("a digest is a row count >= 0 and 32 lower-case hexadecimal digits: "
            + rows + ", " + sum);
      }
    }
  }

  public Verify {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(relation, "relation");
    Objects.requireNonNull(snapshot, "snapshot");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(result, "result");
    columns = List.copyOf(columns);
    digests = digests == null ? List.of() : List.copyOf(digests);
    if (result == Result.COMPARED) {
      if (buckets == null || digests.size() != buckets.count()) {
        throw new IllegalArgumentException("a compared table has one digest per bucket: " + digests.size()
            + " digests for " + buckets);
      }
      if (reason != null) {
        throw new IllegalArgumentException("a compared table has no reason");
      }
    } else if (reason == null || buckets != null || !digests.isEmpty()) {
      throw new IllegalArgumentException("a table not comparable has a reason and no buckets");
    }
  }

  @Override
  public String tag() {
    return "verify";
  }
}
