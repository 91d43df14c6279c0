package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newGlobalOverload;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.types.ListType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;

/**
 * Kubernetes' CEL URL library ({@code k8s.io/apiserver/pkg/cel/library/urls.go}): the same functions, overload ids and
 * error texts. A URL must pass Go's {@code url.ParseRequestURI} (an absolute URI or an absolute path) and is then
 * parsed with {@code url.Parse}, as upstream does; see {@link GoUrl}.
 */
final class UrlLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    static final OpaqueType TYPE = OpaqueType.create("kubernetes.URL");

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("url", newGlobalOverload("string_to_url", TYPE, SimpleType.STRING)),
                newFunctionDeclaration("isURL",
                        newGlobalOverload("is_url_string", SimpleType.BOOL, SimpleType.STRING)),
                newFunctionDeclaration("getScheme", newMemberOverload("url_get_scheme", SimpleType.STRING, TYPE)),
                newFunctionDeclaration("getHost", newMemberOverload("url_get_host", SimpleType.STRING, TYPE)),
                newFunctionDeclaration("getHostname",
                        newMemberOverload("url_get_hostname", SimpleType.STRING, TYPE)),
                newFunctionDeclaration("getPort", newMemberOverload("url_get_port", SimpleType.STRING, TYPE)),
                newFunctionDeclaration("getEscapedPath",
                        newMemberOverload("url_get_escaped_path", SimpleType.STRING, TYPE)),
                newFunctionDeclaration("getQuery", newMemberOverload("url_get_query",
                        MapType.create(SimpleType.STRING, ListType.create(SimpleType.STRING)), TYPE)));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_to_url", String.class, UrlLibrary::parse),
                CelFunctionBinding.from("is_url_string", String.class, UrlLibrary::isUrl),
                CelFunctionBinding.from("url_get_scheme", GoUrl.class, GoUrl::scheme),
                CelFunctionBinding.from("url_get_host", GoUrl.class, GoUrl::host),
                CelFunctionBinding.from("url_get_hostname", GoUrl.class, GoUrl::hostname),
                CelFunctionBinding.from("url_get_port", GoUrl.class, GoUrl::port),
                CelFunctionBinding.from("url_get_escaped_path", GoUrl.class, GoUrl::escapedPath),
                CelFunctionBinding.from("url_get_query", GoUrl.class, GoUrl::query));
    }

    private static GoUrl parse(String text) {
        try {
            GoUrl.parseRequestUri(text);
            return GoUrl.parse(text);
        } catch (GoUrl.ParseException invalid) {
            throw new LibraryFunctionException(
                    "URL parse error during conversion from string: " + invalid.getMessage());
        }
    }

    private static boolean isUrl(String text) {
        try {
            GoUrl.parseRequestUri(text);
            return true;
        } catch (GoUrl.ParseException invalid) {
            return false;
        }
    }
}
