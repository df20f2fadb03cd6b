package dev.floodgate.tools.format;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Aligned columns for terminal output: add rows of cells, then print. Cells are printed as given; callers
 * escape untrusted text first. Columns listed as right-aligned suit numbers. Widths are terminal columns
 * ({@link DisplayWidth}), so an identifier in CJK or with emoji keeps the columns after it aligned.
 */
public final class TextTable
{
    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] right;

    /**
     * @param header the column titles.
     * @param right  per column, true to right-align it.
     */
    public TextTable(final String[] header, final boolean[] right)
    {
        this.right = right.clone();
        rows.add(header.clone());
    }

    /** @param cells one row, as many cells as the header. @return this. */
    public TextTable row(final String... cells)
    {
        rows.add(cells.clone());
        return this;
    }

    /** @return the number of data rows. */
    public int size()
    {
        return rows.size() - 1;
    }

    /** @param out where to print, each row on a line, columns two spaces apart. */
    public void print(final PrintWriter out)
    {
        final int[] width = new int[right.length];
        for (final String[] row : rows)
        {
            for (int c = 0; c < row.length; c++)
            {
                width[c] = Math.max(width[c], DisplayWidth.of(row[c]));
            }
        }
        final StringBuilder line = new StringBuilder();
        for (final String[] row : rows)
        {
            line.setLength(0);
            for (int c = 0; c < row.length; c++)
            {
                final int pad = width[c] - DisplayWidth.of(row[c]);
                if (c > 0)
                {
                    line.append("  ");
                }
                if (right[c])
                {
                    line.append(" ".repeat(pad)).append(row[c]);
                }
                else
                {
                    line.append(row[c]);
                    if (c < row.length - 1)
                    {
                        line.append(" ".repeat(pad));
                    }
                }
            }
            out.println(line);
        }
    }
}
