package io.pg2lite.connect.kafka.hanging;

/**
 * Kafka refused a call of the watch for want of an ACL: the watch cannot tell a hanging
 * transaction from a live one (or cannot abort one) until the operator grants it.
 */
public final class MissingAclException extends Exception {
  private static final long serialVersionUID = 1L;
  private final String acl;

  /** @param acl the ACL to grant, as an operator writes it: "Read on Topic pg2lite.changes" */
  public MissingAclException(String acl, Throwable cause) {
    super("missing ACL " + acl + ": " + cause.getMessage(), cause);
    this.acl = acl;
  }

  /** The ACL to grant. */
  public String acl() {
    return acl;
  }
}
