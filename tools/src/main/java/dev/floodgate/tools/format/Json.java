package dev.floodgate.tools.format;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A small JSON writer for the CLI's {@code --json} output: objects, arrays, strings, numbers and booleans,
 * written compactly in one document. Hand-written so the shaded jar carries no JSON library; field names are a
 * contract with scripts, so commands spell them as constants and tests parse the output back.
 */
public final class Json
{
    private final StringBuilder out = new StringBuilder(256);
    private final Deque<Boolean> first = new ArrayDeque<>();
    private boolean afterName;

    /** @return this, inside a new object. */
    public Json beginObject()
    {
        value();
        out.append('{');
        first.push(true);
        return this;
    }

    /** @return this, after closing the current object. */
    public Json endObject()
    {
        first.pop();
        out.append('}');
        return this;
    }

    /** @return this, inside a new array. */
    public Json beginArray()
    {
        value();
        out.append('[');
        first.push(true);
        return this;
    }

    /** @return this, after closing the current array. */
    public Json endArray()
    {
        first.pop();
        out.append(']');
        return this;
    }

    /** @param name a field name. @return this, expecting the field's value. */
    public Json name(final String name)
    {
        separator();
        string(name);
        out.append(':');
        afterName = true;
        return this;
    }

    /** @param name a field name. @param value its value, or null. @return this. */
    public Json field(final String name, final String value)
    {
        return name(name).value(value);
    }

    /** @param name a field name. @param value its value. @return this. */
    public Json field(final String name, final long value)
    {
        return name(name).value(value);
    }

    /** @param name a field name. @param value its value. @return this. */
    public Json field(final String name, final double value)
    {
        return name(name).value(value);
    }

    /** @param name a field name. @param value its value. @return this. */
    public Json field(final String name, final boolean value)
    {
        name(name);
        value();
        out.append(value);
        return this;
    }

    /** @param value a string, or null. @return this. */
    public Json value(final String value)
    {
        value();
        if (value == null)
        {
            out.append("null");
        }
        else
        {
            string(value);
        }
        return this;
    }

    /** @param value a number. @return this. */
    public Json value(final long value)
    {
        value();
        out.append(value);
        return this;
    }

    /** @param value a number; not finite values are written as null. @return this. */
    public Json value(final double value)
    {
        value();
        if (Double.isFinite(value))
        {
            out.append(value);
        }
        else
        {
            out.append("null");
        }
        return this;
    }

    @Override
    public String toString()
    {
        return out.toString();
    }

    private void value()
    {
        if (afterName)
        {
            afterName = false;
            return;
        }
        separator();
    }

    private void separator()
    {
        if (!first.isEmpty())
        {
            if (first.peek())
            {
                first.pop();
                first.push(false);
            }
            else
            {
                out.append(',');
            }
        }
    }

    private void string(final String s)
    {
        out.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default ->
                {
                    if (c < 0x20 || c == 0x7f || Character.isSurrogate(c) && !validSurrogate(s, i))
                    {
                        out.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean validSurrogate(final String s, final int i)
    {
        final char c = s.charAt(i);
        return Character.isHighSurrogate(c) ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)) :
            i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
