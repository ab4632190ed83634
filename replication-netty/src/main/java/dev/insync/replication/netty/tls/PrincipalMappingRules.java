/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.netty.tls;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code ssl.principal.mapping.rules}, Kafka's syntax: a comma-separated list of
 * {@code RULE:pattern/replacement/} (optionally followed by {@code L} or {@code U} to lower- or
 * upper-case the result) and {@code DEFAULT}. A certificate's subject distinguished name (RFC 2253,
 * as {@code X500Principal.getName()} gives it) is matched against each rule in order; the first
 * whose pattern matches the whole name gives the principal, {@code DEFAULT} gives the name itself.
 * When no rule applies the peer has no principal (Kafka refuses the connection; here it is served
 * as anonymous and so cannot claim a broker id).
 */
public final class PrincipalMappingRules {

    public static final String PROPERTY = "ssl.principal.mapping.rules";
    public static final PrincipalMappingRules DEFAULT = parse("DEFAULT");

    private sealed interface Rule permits Default, Replace {
    }

    private record Default() implements Rule {
    }

    private record Replace(Pattern pattern, String replacement, char caseFlag) implements Rule {
    }

    private final List<Rule> rules;
    private final String text;

    private PrincipalMappingRules(List<Rule> rules, String text) {
        this.rules = List.copyOf(rules);
        this.text = text;
    }

    /** Parses the rules. @throws IllegalArgumentException naming the position of a bad rule */
    public static PrincipalMappingRules parse(String text) {
        List<Rule> rules = new ArrayList<>();
        int i = skipSpaces(text, 0);
        while (i < text.length()) {
            if (text.startsWith("DEFAULT", i)) {
                rules.add(new Default());
                i += "DEFAULT".length();
            } else if (text.startsWith("RULE:", i)) {
                int[] end = new int[1];
                String pattern = untilSlash(text, i + "RULE:".length(), end);
                String replacement = untilSlash(text, end[0], end);
                i = end[0];
                char flag = 0;
                if (i < text.length() && (text.charAt(i) == 'L' || text.charAt(i) == 'U')) {
                    flag = text.charAt(i++);
                }
                try {
                    rules.add(new Replace(Pattern.compile(pattern), replacement, flag));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException(PROPERTY + ": bad pattern '" + pattern + "': " + e.getDescription(), e);
                }
            } else {
                throw new IllegalArgumentException(PROPERTY + ": expected RULE: or DEFAULT at position " + i + " of '"
                        + text + "'");
            }
            i = skipSpaces(text, i);
            if (i < text.length()) {
                if (text.charAt(i) != ',') {
                    throw new IllegalArgumentException(PROPERTY + ": expected ',' at position " + i + " of '" + text + "'");
                }
                i = skipSpaces(text, i + 1);
            }
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException(PROPERTY + " is empty; use DEFAULT");
        }
        return new PrincipalMappingRules(rules, text);
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Reads up to the next unescaped '/', keeping escapes as they are (they are regex escapes). */
    private static String untilSlash(String text, int from, int[] end) {
        StringBuilder sb = new StringBuilder();
        int i = from;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                sb.append(c).append(text.charAt(i + 1));
                i += 2;
            } else if (c == '/') {
                end[0] = i + 1;
                return sb.toString();
            } else {
                sb.append(c);
                i++;
            }
        }
        throw new IllegalArgumentException(PROPERTY + ": unterminated RULE starting at position " + from + " of '"
                + text + "'");
    }

    /** The principal for a certificate subject {@code distinguishedName}, if a rule applies. */
    public Optional<String> principalFor(String distinguishedName) {
        for (Rule rule : rules) {
            if (rule instanceof Default) {
                return Optional.of(distinguishedName);
            }
            Replace r = (Replace) rule;
            Matcher m = r.pattern().matcher(distinguishedName);
            if (m.matches()) {
                String name = m.replaceAll(r.replacement());
                return Optional.of(switch (r.caseFlag()) {
                    case 'L' -> name.toLowerCase(Locale.ROOT);
                    case 'U' -> name.toUpperCase(Locale.ROOT);
                    default -> name;
                });
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
