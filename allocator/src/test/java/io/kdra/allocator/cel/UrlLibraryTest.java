package io.kdra.allocator.cel;

import static io.kdra.allocator.cel.CelSelectorCompilerTest.assertCheckError;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.matches;
import static io.kdra.allocator.cel.CelSelectorCompilerTest.runtimeError;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kubernetes' URL library, after {@code k8s.io/apiserver/pkg/cel/library/urls.go} and Go's net/url. */
class UrlLibraryTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path')",
        "isURL('https://example.com') && isURL('mailto:someone@example.com') && isURL('*') && "
                + "isURL('http://[::1]:80/')",
        "!isURL('https://a:b:c/') && !isURL('../relative-path') && !isURL('') && !isURL('example.com/path')",
        "!isURL('https://exa mple.com/') && !isURL('https://example.com/%zz') && !isURL('http://[::1/')",
        "url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'",
        "url('HTTPS://example.com/').getScheme() == 'https' && url('mailto:a@b.c').getScheme() == 'mailto'",
        "url('https://example.com:80/').getHost() == 'example.com:80' && "
                + "url('https://example.com/').getHost() == 'example.com'",
        "url('https://[::1]:80/').getHost() == '[::1]:80' && url('https://[::1]/').getHost() == '[::1]' && "
                + "url('/path').getHost() == ''",
        "url('https://user:pass@example.com/').getHost() == 'example.com'",
        "url('https://example.com:80/').getHostname() == 'example.com' && "
                + "url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'",
        "url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''",
        "url('https://[fe80::1%25en0]:8080/').getHostname() == 'fe80::1%en0'",
        "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == '' && "
                + "url('/path').getPort() == ''",
        "url('https://example.com:/').getPort() == '' && url('https://example.com:/').getHostname() == 'example.com'",
        "url('http://a:b:80/').getHostname() == 'a:b' && url('http://a:b:80/').getPort() == '80'",
        "url('https://example.com/path').getEscapedPath() == '/path' && "
                + "url('https://example.com').getEscapedPath() == ''",
        "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
        "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb' && "
                + "url('https://example.com/%61').getEscapedPath() == '/%61'",
        "url('https://example.com/caf%C3%A9').getEscapedPath() == '/caf%C3%A9' && "
                + "url('/café').getEscapedPath() == '/caf%C3%A9'",
        "url('https://example.com/p#frag').getEscapedPath() == '/p' && "
                + "url('https://example.com/p?q=1#frag').getQuery() == {'q': ['1']}",
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == "
                + "{'key with spaces': ['value with spaces']}",
        "url('https://example.com/path?').getQuery() == {} && url('https://example.com/path').getQuery() == {}",
        "url('/p?a=1;b=2&c=3&d&e=%zz&f=x+y%2B').getQuery() == {'c': ['3'], 'd': [''], 'f': ['x y+']}",
        "url('https://example.com/a') == url('https://example.com/a') && "
                + "url('HTTPS://example.com/a') == url('https://example.com/a')",
        "url('https://example.com/a') != url('https://example.com/b') && url('/%61') != url('/a')",
    })
    void evaluatesAsKubernetes(String expression) throws Exception {
        assertThat(matches(expression)).isTrue();
    }

    @Test
    void dropsQueriesOfMoreThanTenThousandParametersAsGoDoes() throws Exception {
        assertThat(GoUrl.parse("/p?" + "a&".repeat(9_999) + "b").query().get("a")).hasSize(9_999);
        assertThat(GoUrl.parse("/p?" + "a&".repeat(10_000) + "b").query()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "https://a:b:c/          | invalid port \":c\" after host",
        "../relative-path        | invalid URI for request",
        "''                      | empty url",
        ":foo                    | missing protocol scheme",
        "https://exa mple.com/   | invalid character \" \" in host name",
        "https://example.com/%zz | invalid URL escape \"%zz\"",
        "https://example.com/%4  | invalid URL escape \"%4\"",
        "https://%41.com/        | invalid URL escape \"%41\"",
        "http://[::1/            | missing ']' in host",
        "http://[::1]x/          | invalid port \"x\" after host",
        "https://us er@example.com/ | net/url: invalid userinfo",
        "https://[1.2.3.4]/      | invalid IP-literal",
        "https://x[::1]/         | invalid IP-literal",
        "https://[example]/      | invalid host: ParseAddr(\"example\"): unable to parse IP",
        "https://[12345::]/      | invalid host: ParseAddr(\"12345::\"): each group must have 4 or less digits (at "
                + "\"12345::\")",
    })
    void reportsParseErrorsAsKubernetes(String text, String goError) {
        String literal = text.equals("''") ? "" : text;
        assertThat(runtimeError("url('" + literal + "').getScheme() == ''")).isEqualTo(
                "URL parse error during conversion from string: parse \"" + literal + "\": " + goError);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "url('https://a\\nb/').getHost() == '' | URL parse error during conversion from string: parse "
                + "\"https://a\\nb/\": net/url: invalid control character in URL",
    })
    void rejectsControlCharacters(String expression, String message) {
        assertThat(runtimeError(expression)).isEqualTo(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "url(1).getHost() == ''             | found no matching overload for 'url' applied to '(int)'",
        "url('/a') == '/a'                  | "
                + "found no matching overload for '_==_' applied to '(kubernetes.URL, string)'",
        "'https://a/'.getHost() == 'a'      | found no matching overload for 'getHost' applied to 'string.()'",
    })
    void rejectsAtCompileTime(String expression, String message) {
        assertCheckError(expression, message);
    }
}
