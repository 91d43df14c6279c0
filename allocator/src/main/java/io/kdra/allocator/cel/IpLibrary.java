package io.kdra.allocator.cel;

import io.kdra.kube.net.IpAddress;
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
import java.util.function.Predicate;

/**
 * Kubernetes' CEL IP library ({@code k8s.io/apiserver/pkg/cel/library/ip.go}): the same functions, overload ids and
 * error texts. Addresses are literals only (Go's {@code netip.ParseAddr}, see {@link IpAddress}); zones and
 * IPv4-mapped IPv6 addresses are rejected.
 */
final class IpLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    static final OpaqueType TYPE = OpaqueType.create("net.IP");

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("ip", newGlobalOverload("string_to_ip", TYPE, SimpleType.STRING)),
                newFunctionDeclaration("isIP", newGlobalOverload("is_ip", SimpleType.BOOL, SimpleType.STRING)),
                newFunctionDeclaration("ip.isCanonical",
                        newGlobalOverload("ip_is_canonical", SimpleType.BOOL, SimpleType.STRING)),
                newFunctionDeclaration("family", newMemberOverload("ip_family", SimpleType.INT, TYPE)),
                newFunctionDeclaration("isUnspecified",
                        newMemberOverload("ip_is_unspecified", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("isLoopback", newMemberOverload("ip_is_loopback", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("isLinkLocalMulticast",
                        newMemberOverload("ip_is_link_local_multicast", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("isLinkLocalUnicast",
                        newMemberOverload("ip_is_link_local_unicast", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("isGlobalUnicast",
                        newMemberOverload("ip_is_global_unicast", SimpleType.BOOL, TYPE)),
                newFunctionDeclaration("string", newGlobalOverload("ip_to_string", SimpleType.STRING, TYPE)));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("string_to_ip", String.class, IpLibrary::parse),
                CelFunctionBinding.from("is_ip", String.class,
                        text -> LibraryFunctionException.accepts(IpLibrary::parse, text)),
                CelFunctionBinding.from("ip_is_canonical", String.class, text -> parse(text).toString().equals(text)),
                CelFunctionBinding.from("ip_family", IpAddress.class, IpAddress::family),
                predicate("ip_is_unspecified", IpAddress::isUnspecified),
                predicate("ip_is_loopback", IpAddress::isLoopback),
                predicate("ip_is_link_local_multicast", IpAddress::isLinkLocalMulticast),
                predicate("ip_is_link_local_unicast", IpAddress::isLinkLocalUnicast),
                predicate("ip_is_global_unicast", IpAddress::isGlobalUnicast),
                CelFunctionBinding.from("ip_to_string", IpAddress.class, IpAddress::toString));
    }

    private static CelFunctionBinding predicate(String overload, Predicate<IpAddress> test) {
        return CelFunctionBinding.from(overload, IpAddress.class, test::test);
    }

    /** Kubernetes' {@code parseIPAddr}. */
    static IpAddress parse(String text) {
        IpAddress.Parsed parsed;
        try {
            parsed = IpAddress.parse(text);
        } catch (IllegalArgumentException invalid) {
            throw new LibraryFunctionException("IP Address " + GoQuote.quote(text)
                    + " parse error during conversion from string: " + invalid.getMessage());
        }
        if (!parsed.zone().isEmpty()) {
            throw new LibraryFunctionException(
                    "IP address " + GoQuote.quote(text) + " with zone value is not allowed");
        }
        if (parsed.address().isIpv4MappedIpv6()) {
            throw new LibraryFunctionException(
                    "IPv4-mapped IPv6 address " + GoQuote.quote(text) + " is not allowed");
        }
        return parsed.address();
    }
}
