package io.pg2lite.testkit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives integration tests the JVM-wide {@link TestStack}: {@code @ExtendWith(TestStackExtension.class)}
 * and a {@code TestStack} parameter (constructor, lifecycle or test method).
 *
 * <p>The stack is registered in the root context's store, so JUnit closes it once, after the
 * last test of the run, whichever class used it first.
 */
public final class TestStackExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestStackExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestStack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
      throws ParameterResolutionException {
    return context.getRoot().getStore(NAMESPACE)
        .getOrComputeIfAbsent(ClosingStack.class, k -> new ClosingStack(TestStack.shared()), ClosingStack.class)
        .stack;
  }

  /** Closes the stack when JUnit closes the root store at the end of the run. */
  private record ClosingStack(TestStack stack) implements ExtensionContext.Store.CloseableResource {
    @Override
    public void close() throws Throwable {
      stack.close();
    }
  }
}
