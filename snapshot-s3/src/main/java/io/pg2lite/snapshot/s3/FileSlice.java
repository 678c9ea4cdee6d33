package io.pg2lite.snapshot.s3;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code length} bytes of a file from {@code offset} on, as a stream: the body of one part of a
 * multipart upload, read from disk rather than held in memory. The SDK may open a part's body more
 * than once (to sign it, and again on a retry), so each open is a fresh slice.
 */
final class FileSlice extends InputStream {
  private final FileChannel channel;
  private long position;
  private final long end;

  private FileSlice(FileChannel channel, long offset, long length) {
    this.channel = channel;
    this.position = offset;
    this.end = offset + length;
  }

  static FileSlice open(Path file, long offset, long length) throws IOException {
    return new FileSlice(FileChannel.open(file, StandardOpenOption.READ), offset, length);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (position >= end) {
      return -1;
    }
    int n = channel.read(ByteBuffer.wrap(b, off, (int) Math.min(len, end - position)), position);
    if (n < 0) {
      // the file shrank under us: the caller's Content-Length no longer holds, so say so loudly
      throw new IOException("file ended at byte " + position + ", before the part's end at " + end);
    }
    position += n;
    return n;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
