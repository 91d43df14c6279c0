package io.kdra.apiserver.nodeproxy;

import io.kdra.apiserver.api.ApiException;
import io.vertx.core.MultiMap;
import java.util.List;

/**
 * The options of a {@code pods/exec} request (core/v1 PodExecOptions) as read from a query: {@code stdin},
 * {@code stdout}, {@code stderr}, {@code tty}, {@code container} and the repeated {@code command}.
 */
record PodExecOptions(String container, boolean stdin, boolean stdout, boolean stderr, boolean tty,
        List<String> command) {

    PodExecOptions {
        command = List.copyOf(command);
    }

    static PodExecOptions parse(MultiMap query) {
        return new PodExecOptions(query.get("container"), QueryValues.flag(query, "stdin"),
                QueryValues.flag(query, "stdout"), QueryValues.flag(query, "stderr"), QueryValues.flag(query, "tty"),
                query.getAll("command"));
    }

    /**
     * Rejects what no kubelet could run, with the words kubectl and the kubelet use for the same mistakes.
     *
     * @throws ApiException 400 without a command or without any stream
     */
    void validate() {
        if (command.isEmpty()) {
            throw ApiException.badRequest("you must specify at least one command for the container");
        }
        if (!stdin && !stdout && !stderr) {
            throw ApiException.badRequest("you must specify at least 1 of stdin, stdout, stderr");
        }
    }

    /**
     * @return the kubelet's {@code /exec} query with its own parameter names, as kube-apiserver's ExecLocation
     *     converts PodExecOptions
     */
    String kubeletQuery() {
        QueryValues.Builder query = new QueryValues.Builder()
                .addIf(stdin, "input", "1")
                .addIf(stdout, "output", "1")
                .addIf(stderr, "error", "1")
                .addIf(tty, "tty", "1");
        command.forEach(argument -> query.add("command", argument));
        return query.toString();
    }
}
