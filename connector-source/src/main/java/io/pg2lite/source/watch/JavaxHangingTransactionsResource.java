package io.pg2lite.source.watch;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.Configuration;
import javax.ws.rs.core.Context;

/**
 * {@code GET /pg2lite/hanging-transactions} on Connect 3.x (Jersey 2, javax.ws.rs). Registered as
 * a class, as Connect registers its own (an instance makes Jersey log a misleading "will be
 * ignored" warning); the watch comes from the application's configuration.
 */
@Path("/pg2lite")
public final class JavaxHangingTransactionsResource {
  @GET
  @Path("/hanging-transactions")
  @Produces("application/json")
  public String hangingTransactions(@Context Configuration config) {
    return HangingTransactionsJson.of(config.getProperty(HangingTransactionsJson.WATCH_PROPERTY));
  }
}
