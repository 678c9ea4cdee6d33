package io.pg2lite.source.watch;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;

/**
 * {@code GET /pg2lite/hanging-transactions} on Connect 4.x (Jersey 3, jakarta.ws.rs). Registered as
 * a class, as Connect registers its own (an instance makes Jersey log a misleading "will be
 * ignored" warning); the watch comes from the application's configuration.
 */
@Path("/pg2lite")
public final class JakartaHangingTransactionsResource {
  @GET
  @Path("/hanging-transactions")
  @Produces("application/json")
  public String hangingTransactions(@Context Configuration config) {
    return HangingTransactionsJson.of(config.getProperty(HangingTransactionsJson.WATCH_PROPERTY));
  }
}
