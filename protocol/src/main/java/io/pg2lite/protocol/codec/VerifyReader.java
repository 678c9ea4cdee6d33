package io.pg2lite.protocol.codec;

import io.pg2lite.protocol.message.Verify;
import io.pg2lite.protocol.schema.Relation;
import io.pg2lite.protocol.verify.Buckets;
import io.pg2lite.protocol.watermark.Watermark;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Reads a {@code verify} message's fields, after its tag (docs/protocol.md, "Verification"). */
final class VerifyReader {
  private final JsonCursor in;
  private final StructureReader struct;

  VerifyReader(JsonCursor in, StructureReader struct) {
    this.in = in;
    this.struct = struct;
  }

  Verify read() throws IOException {
    String id = null;
    Relation relation = null;
    List<String> columns = null;
    Watermark snapshot = null;
    Watermark since = null;
    String result = null;
    String reason = null;
    Verify.KeyRange keyRange = null;
    Buckets.Ranges ranges = null;
    boolean hashed = false;
    List<Verify.Digest> digests = null;
    Long excluded = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "id" -> id = in.string();
        case "relation" -> relation = struct.relation();
        case "columns" -> columns = in.stringList();
        case "snapshot" -> snapshot = in.watermark();
        case "since" -> since = in.watermark();
        case "result" -> result = in.string();
        case "reason" -> reason = in.nullableString();
        case "keyRange" -> keyRange = in.nextIsNull() ? null : keyRange();
        case "buckets" -> {
          in.startObject();
          String kind = null;
          Long min = null;
          Long max = null;
          for (String b; (b = in.nextField()) != null; ) {
            switch (b) {
              case "kind" -> kind = in.string();
              case "min" -> min = in.int64();
              case "max" -> max = in.int64();
              default -> throw in.unknownField(b);
            }
          }
          if ("hashed".equals(kind) && min == null && max == null) {
            hashed = true;
          } else if ("ranges".equals(kind) && min != null && max != null) {
            ranges = new Buckets.Ranges(min, max, 1); // the count is the digests'
          } else {
            throw in.error("buckets are {\"kind\":\"hashed\"} or {\"kind\":\"ranges\",\"min\":…,\"max\":…}");
          }
        }
        case "digests" -> digests = digests();
        case "excluded" -> excluded = in.int64();
        default -> throw in.unknownField(f);
      }
    }
    Verify.Result r;
    try {
      r = Verify.Result.ofWire(struct.required(result, "result"));
    } catch (IllegalArgumentException e) {
      throw in.error(e.getMessage());
    }
    Buckets buckets = null;
    if (digests != null && !digests.isEmpty()) {
      buckets = hashed ? new Buckets.Hashed(digests.size())
          : ranges != null ? new Buckets.Ranges(ranges.min(), ranges.max(), digests.size()) : null;
      if (buckets == null) {
        throw in.missing("buckets");
      }
    } else if (hashed || ranges != null) {
      throw in.missing("digests");
    }
    try {
      return new Verify(struct.required(id, "id"), struct.required(relation, "relation"),
          struct.required(columns, "columns"), struct.required(snapshot, "snapshot"), struct.required(since, "since"),
          r, reason, keyRange, buckets, digests, excluded == null ? 0 : excluded);
    } catch (IllegalArgumentException e) {
      throw in.error(e.getMessage());
    }
  }

  private Verify.KeyRange keyRange() throws IOException {
    Long from = null;
    Long to = null;
    for (String f; (f = in.nextField()) != null; ) {
      switch (f) {
        case "from" -> from = in.int64();
        case "to" -> to = in.int64();
        default -> throw in.unknownField(f);
      }
    }
    try {
      return new Verify.KeyRange(struct.required(from, "from"), struct.required(to, "to"));
    } catch (IllegalArgumentException e) {
      throw in.error(e.getMessage());
    }
  }

  /** {@code [[rows, "sum"], …]}. */
  private List<Verify.Digest> digests() throws IOException {
    in.startArray("an array of digests");
    List<Verify.Digest> out = new ArrayList<>();
    while (in.nextElement()) {
      if (!in.isAtArrayStart()) {
        throw in.mistyped("a digest, [rows, \"sum\"]");
      }
      long rows = in.int64();
      String sum = in.string();
      if (in.nextElement()) {
        throw in.error("a digest is [rows, \"sum\"]: two elements");
      }
      try {
        out.add(new Verify.Digest(rows, sum));
      } catch (IllegalArgumentException e) {
        throw in.error(e.getMessage());
      }
    }
    return out;
  }
}
