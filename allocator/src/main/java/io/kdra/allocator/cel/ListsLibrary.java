package io.kdra.allocator.cel;

import static dev.cel.common.CelFunctionDecl.newFunctionDeclaration;
import static dev.cel.common.CelOverloadDecl.newMemberOverload;

import com.google.common.primitives.UnsignedLong;
import dev.cel.checker.CelCheckerBuilder;
import dev.cel.common.CelOptions;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.types.TypeParamType;
import dev.cel.common.values.CelByteString;
import dev.cel.compiler.CelCompilerLibrary;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelRuntimeBuilder;
import dev.cel.runtime.CelRuntimeLibrary;
import dev.cel.runtime.RuntimeEquality;
import dev.cel.runtime.RuntimeHelpers;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kubernetes' CEL list library ({@code k8s.io/apiserver/pkg/cel/library/lists.go}): {@code isSorted}, {@code sum},
 * {@code min}, {@code max}, {@code indexOf}, {@code lastIndexOf}.
 *
 * <p>Upstream declares one overload per element type. cel-java cannot dispatch between such overloads when the list
 * is only known at run time ({@code dyn}, e.g. a list attribute), so each function has one generic overload here and
 * {@link LiteralChecks} rejects the element types upstream does not declare, at compile time with upstream's message.
 * One consequence: the sum of an empty list is always the integer 0.
 */
final class ListsLibrary implements CelCompilerLibrary, CelRuntimeLibrary {

    /** Element kinds each function accepts, as upstream's overloads; {@code dyn} is decided at run time. */
    static final Map<String, Set<CelKind>> ELEMENT_KINDS = Map.of(
            "isSorted", comparableKinds(),
            "min", comparableKinds(),
            "max", comparableKinds(),
            "sum", Set.of(CelKind.INT, CelKind.UINT, CelKind.DOUBLE, CelKind.DURATION, CelKind.DYN));

    private static final TypeParamType ELEMENT = TypeParamType.create("A");
    private static final ListType LIST = ListType.create(ELEMENT);

    private final RuntimeEquality equality;

    ListsLibrary(CelOptions options) {
        this.equality = RuntimeEquality.create(RuntimeHelpers.create(), options);
    }

    private static Set<CelKind> comparableKinds() {
        return Set.of(CelKind.INT, CelKind.UINT, CelKind.DOUBLE, CelKind.BOOL, CelKind.DURATION, CelKind.TIMESTAMP,
                CelKind.STRING, CelKind.BYTES, CelKind.DYN);
    }

    @Override
    public void setCheckerOptions(CelCheckerBuilder checker) {
        checker.addFunctionDeclarations(
                newFunctionDeclaration("isSorted", newMemberOverload("list_a_is_sorted_bool", SimpleType.BOOL, LIST)),
                newFunctionDeclaration("sum", newMemberOverload("list_a_sum_a", ELEMENT, LIST)),
                newFunctionDeclaration("min", newMemberOverload("list_a_min_a", ELEMENT, LIST)),
                newFunctionDeclaration("max", newMemberOverload("list_a_max_a", ELEMENT, LIST)),
                newFunctionDeclaration("indexOf",
                        newMemberOverload("list_a_index_of_int", SimpleType.INT, LIST, ELEMENT)),
                newFunctionDeclaration("lastIndexOf",
                        newMemberOverload("list_a_last_index_of_int", SimpleType.INT, LIST, ELEMENT)));
    }

    @Override
    public void setRuntimeOptions(CelRuntimeBuilder runtime) {
        runtime.addFunctionBindings(
                CelFunctionBinding.from("list_a_is_sorted_bool", List.class, ListsLibrary::isSorted),
                CelFunctionBinding.from("list_a_sum_a", List.class, ListsLibrary::sum),
                CelFunctionBinding.from("list_a_min_a", List.class, list -> extreme(list, "min", -1)),
                CelFunctionBinding.from("list_a_max_a", List.class, list -> extreme(list, "max", 1)),
                CelFunctionBinding.from("list_a_index_of_int", List.class, Object.class, this::indexOf),
                CelFunctionBinding.from("list_a_last_index_of_int", List.class, Object.class, this::lastIndexOf));
    }

    private static boolean isSorted(List<?> list) {
        if (!list.isEmpty()) {
            checkComparable(list.get(0));
        }
        for (int i = 1; i < list.size(); i++) {
            if (compare(list.get(i - 1), list.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }

    /** The first element that is strictly smaller ({@code direction} -1) or larger (1) than all before it. */
    private static Object extreme(List<?> list, String function, int direction) {
        if (list.isEmpty()) {
            throw new LibraryFunctionException(function + " called on empty list");
        }
        Object result = checkComparable(list.get(0));
        for (Object element : list.subList(1, list.size())) {
            if (Integer.signum(compare(element, result)) == direction) {
                result = element;
            }
        }
        return result;
    }

    private static Object sum(List<?> list) {
        Object total = 0L;
        for (int i = 0; i < list.size(); i++) {
            total = i == 0 ? summand(list.get(0)) : add(total, list.get(i));
        }
        return total;
    }

    private static Object summand(Object value) {
        if (value instanceof Long || value instanceof UnsignedLong || value instanceof Double
                || value instanceof Duration) {
            return value;
        }
        throw noSuchOverload();
    }

    private static Object add(Object total, Object value) {
        try {
            if (total instanceof Long a && value instanceof Long b) {
                return Math.addExact(a, b);
            }
            if (total instanceof Double a && value instanceof Double b) {
                return a + b;
            }
            if (total instanceof Duration a && value instanceof Duration b) {
                return a.plus(b);
            }
        } catch (ArithmeticException overflow) {
            throw new LibraryFunctionException("integer overflow");
        }
        if (total instanceof UnsignedLong a && value instanceof UnsignedLong b) {
            UnsignedLong result = a.plus(b);
            if (result.compareTo(a) < 0) {
                throw new LibraryFunctionException("unsigned integer overflow");
            }
            return result;
        }
        throw noSuchOverload();
    }

    /** CEL ordering: numbers across types by value, strings by code point, bytes unsigned, others natural. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compare(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return compareCodePoints(x, y);
        }
        if (a instanceof CelByteString x && b instanceof CelByteString y) {
            return CelByteString.unsignedLexicographicalComparator().compare(x, y);
        }
        if (a instanceof Number x && b instanceof Number y && a.getClass() != b.getClass()) {
            return numericValue(x).compareTo(numericValue(y));
        }
        if (a instanceof Comparable x && a.getClass() == b.getClass()) {
            return x.compareTo(b);
        }
        throw noSuchOverload();
    }

    /** Upstream rejects an element that has no ordering even when there is nothing to compare it with. */
    private static Object checkComparable(Object element) {
        compare(element, element);
        return element;
    }

    /** Go's string order: by UTF-8 bytes, which is code point order (not Java's UTF-16 order). */
    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    private static BigDecimal numericValue(Number number) {
        if (number instanceof UnsignedLong unsigned) {
            return new BigDecimal(unsigned.bigIntegerValue());
        }
        if (number instanceof Double value && !value.isNaN() && !value.isInfinite()) {
            return BigDecimal.valueOf(value);
        }
        if (number instanceof Long value) {
            return BigDecimal.valueOf(value);
        }
        throw noSuchOverload();
    }

    private static LibraryFunctionException noSuchOverload() {
        return new LibraryFunctionException("no such overload");
    }

    private long indexOf(List<?> list, Object element) {
        for (int i = 0; i < list.size(); i++) {
            if (equality.objectEquals(list.get(i), element)) {
                return i;
            }
        }
        return -1;
    }

    private long lastIndexOf(List<?> list, Object element) {
        for (int i = list.size() - 1; i >= 0; i--) {
            if (equality.objectEquals(list.get(i), element)) {
                return i;
            }
        }
        return -1;
    }
}
