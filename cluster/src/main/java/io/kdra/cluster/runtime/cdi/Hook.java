package io.kdra.cluster.runtime.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * An OCI hook a CDI device asks for. Runtimes that run local processes record hooks but never run them.
 *
 * @param hookName one of {@code prestart}, {@code createRuntime}, {@code createContainer}, {@code startContainer},
 *     {@code poststart}, {@code poststop}
 * @param path the hook's executable
 * @param args its arguments, {@code args[0]} included
 * @param env its environment as {@code NAME=value}
 * @param timeout seconds, or null for none
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonPropertyOrder({"hookName", "path", "args", "env", "timeout"})
public record Hook(String hookName, String path, List<String> args, List<String> env, Integer timeout) {

    public Hook {
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? List.of() : List.copyOf(env);
    }
}
