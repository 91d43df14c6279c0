package io.kdra.framework;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a class of DRA specs: {@link FrameworkExtension} sets up its {@link Framework} field before each spec and
 * cleans up after it. Name the class with {@code @DisplayName} and tag it with {@code @Tag} as upstream names and
 * labels the container; the spec's full name is the class's display name, a space, and the method's.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(FrameworkExtension.class)
public @interface DraSpec {
}
