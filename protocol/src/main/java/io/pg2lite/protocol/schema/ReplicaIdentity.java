package io.pg2lite.protocol.schema;

/** Postgres' REPLICA IDENTITY of a table: which old-row columns a change carries. */
public enum ReplicaIdentity {
  DEFAULT("default"),
  NOTHING("nothing"),
  FULL("full"),
  INDEX("index");

  private final String wireName;

  ReplicaIdentity(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  /** The identity named {@code name} on the wire, or null if there is none. */
  public static ReplicaIdentity fromWire(String name) {
    for (ReplicaIdentity r : values()) {
      if (r.wireName.equals(name)) {
        return r;
      }
    }
    return null;
  }
}
