package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newGlobalOverload;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.types.OpaqueType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;

/**
 * Kubernetes' CEL semver library ({@code k8s.io/apiserver/pkg/cel/library/semverlib.go}, version 1 with the optional
 * {@code normalize} argument).
 */
final class SemverLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    static final OpaqueType TYPE = OpaqueType.create("kubernetes.Semver");

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("semver",
                        newGlobalOverload("string_to_semver", TYPE, SimpleType.STRING),
                        newGlobalOverload("string_bool_to_semver", TYPE, SimpleType.STRING, SimpleType.BOOL)),
                newFunctionDeclaration("isSemver",
                        newGlobalOverload("is_semver_string", SimpleType.BOOL, SimpleType.STRING),
                        newGlobalOverload("is_semver_string_bool", SimpleType.BOOL, SimpleType.STRING,
                                SimpleType.BOOL)),
                newFunctionDeclaration("major", newMemberOverload("semver_major", SimpleType.INT, TYPE)),
                newFunctionDeclaration("minor", newMemberOverload("semver_minor", SimpleType.INT, TYPE)),
                newFunctionDeclaration("patch", newMemberOverload("semver_patch", SimpleType.INT, TYPE)));
        checker.addFunctionDeclarations(ComparisonFunctions.declarations("semver", TYPE));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_to_semver", String.class, text -> parse(text, false)),
                CelFunctionBinding.from("string_bool_to_semver", String.class, Boolean.class, SemverLibrary::parse),
                CelFunctionBinding.from("is_semver_string", String.class, text -> isSemver(text, false)),
                CelFunctionBinding.from("is_semver_string_bool", String.class, Boolean.class,
                        SemverLibrary::isSemver),
                CelFunctionBinding.from("semver_major", Semver.class, Semver::major),
                CelFunctionBinding.from("semver_minor", Semver.class, Semver::minor),
                CelFunctionBinding.from("semver_patch", Semver.class, Semver::patch));
        runtime.addFunctionBindings(ComparisonFunctions.bindings("semver", Semver.class));
    }

    private static Semver parse(String text, boolean normalize) {
        try {
            return normalize ? Semver.parseNormalized(text) : Semver.parse(text);
        } catch (IllegalArgumentException invalid) {
            throw new LibraryFunctionException(invalid.getMessage());
        }
    }

    private static boolean isSemver(String text, boolean normalize) {
        return LibraryFunctionException.accepts(candidate -> parse(candidate, normalize), text);
    }
}
