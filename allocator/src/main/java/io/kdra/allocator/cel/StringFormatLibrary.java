package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import java.util.List;

/**
 * The strings extension's {@code format} (cel-go {@code ext.Strings}, introduced at version 1), which cel-java 0.14.0
 * lacks; see {@link StringFormatter}. Like Kubernetes, no compile-time check of the clauses: errors surface when the
 * expression runs.
 */
final class StringFormatLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(newFunctionDeclaration("format",
                newMemberOverload("string_format", SimpleType.STRING, SimpleType.STRING,
                        ListType.create(SimpleType.DYN))));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(CelFunctionBinding.from("string_format", String.class, List.class,
                StringFormatter::format));
    }
}
