package io.kdra.allocator.cel;

import io.kdra.kube.net.IpAddress;
import io.kdra.kube.net.Cidr;
import io.kdra.kube.GoQuote;
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
 * Kubernetes' CEL CIDR library ({@code k8s.io/apiserver/pkg/cel/library/cidr.go}): the same functions, overload ids
 * and error texts, including upstream's doubled prefix on parse errors and its {@code no such overload} for
 * {@code containsIP} with an invalid address string. {@code containsCIDR} follows the fixed rule of kubernetes#130450.
 */
final class CidrLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    static final OpaqueType TYPE = OpaqueType.create("net.CIDR");

    private static final String PARSE_ERROR = "network address parse error during conversion from string: ";

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("cidr", newGlobalOverload("string_to_cidr", TYPE, SimpleType.STRING)),
                newFunctionDeclaration("isCIDR", newGlobalOverload("is_cidr", SimpleType.BOOL, SimpleType.STRING)),
                newFunctionDeclaration("containsIP",
                        newMemberOverload("cidr_contains_ip_string", SimpleType.BOOL, TYPE, SimpleType.STRING),
                        newMemberOverload("cidr_contains_ip_ip", SimpleType.BOOL, TYPE, IpLibrary.TYPE)),
                newFunctionDeclaration("containsCIDR",
                        newMemberOverload("cidr_contains_cidr_string", SimpleType.BOOL, TYPE, SimpleType.STRING),
                        newMemberOverload("cidr_contains_cidr", SimpleType.BOOL, TYPE, TYPE)),
                newFunctionDeclaration("ip", newMemberOverload("cidr_ip", IpLibrary.TYPE, TYPE)),
                newFunctionDeclaration("prefixLength", newMemberOverload("cidr_prefix_length", SimpleType.INT, TYPE)),
                newFunctionDeclaration("masked", newMemberOverload("cidr_masked", TYPE, TYPE)),
                newFunctionDeclaration("string", newGlobalOverload("cidr_to_string", SimpleType.STRING, TYPE)));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_to_cidr", String.class, CidrLibrary::parse),
                CelFunctionBinding.from("is_cidr", String.class,
                        text -> LibraryFunctionException.accepts(CidrLibrary::parse, text)),
                CelFunctionBinding.from("cidr_contains_ip_string", Cidr.class, String.class,
                        CidrLibrary::containsIpString),
                CelFunctionBinding.from("cidr_contains_ip_ip", Cidr.class, IpAddress.class, Cidr::contains),
                CelFunctionBinding.from("cidr_contains_cidr_string", Cidr.class, String.class,
                        (cidr, other) -> cidr.contains(parse(other))),
                CelFunctionBinding.from("cidr_contains_cidr", Cidr.class, Cidr.class, Cidr::contains),
                CelFunctionBinding.from("cidr_ip", Cidr.class, Cidr::address),
                CelFunctionBinding.from("cidr_prefix_length", Cidr.class, cidr -> (long) cidr.bits()),
                CelFunctionBinding.from("cidr_masked", Cidr.class, Cidr::masked),
                CelFunctionBinding.from("cidr_to_string", Cidr.class, Cidr::toString));
    }

    /** Kubernetes' {@code stringToCIDR} around its {@code parseCIDR}, which both add the same prefix. */
    private static Cidr parse(String text) {
        Cidr cidr;
        try {
            cidr = Cidr.parse(text);
        } catch (IllegalArgumentException invalid) {
            throw new LibraryFunctionException(PARSE_ERROR + PARSE_ERROR + invalid.getMessage());
        }
        if (cidr.address().isIpv4MappedIpv6()) {
            throw new LibraryFunctionException(
                    PARSE_ERROR + "IPv4-mapped IPv6 address " + GoQuote.quote(text) + " is not allowed");
        }
        return cidr;
    }

    /** Upstream drops the parse error here and reports the overload mismatch it causes instead. */
    private static boolean containsIpString(Cidr cidr, String text) {
        IpAddress ip;
        try {
            ip = IpLibrary.parse(text);
        } catch (LibraryFunctionException invalid) {
            throw new LibraryFunctionException("no such overload");
        }
        return cidr.contains(ip);
    }
}
