package io.pg2lite.replica.verify;

/** What verifications found, for the sink's and the follower's metrics; safe from any thread. */
public interface VerifyFigures {
  VerifyFigures NONE = new VerifyFigures() {
    @Override
    public String verifiedAt() {
      return "";
    }

    @Override
    public long mismatches() {
      return 0;
    }
  };

  /** The watermark of the last verification completed (whatever its outcome); "" before any. */
  String verifiedAt();

  /** Tables found different from Postgres since the start. */
  long mismatches();
}
