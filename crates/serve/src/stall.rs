//! A connection whose writes may wait for the client only so long: a client that stops
//! reading its answers (or pipelines requests and reads nothing) would otherwise hold its
//! connection, a task and the answer's buffers for as long as it likes.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `inner` with a deadline on writes: one that makes no progress for `limit` fails with
/// `TimedOut`, and hyper then drops the connection. Reads are passed through (hyper's own
/// header deadline bounds them).
pub struct WriteDeadline<T> {
    inner: T,
    limit: Duration,
    /// Started when a write first waits; cleared by any write that makes progress.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteDeadline<T> {
    /// Wraps `inner`.
    pub fn new(inner: T, limit: Duration) -> WriteDeadline<T> {
        WriteDeadline {
            inner,
            limit,
            stalled: None,
        }
    }

    /// What a write that returned `got` answers: its result when ready, else pending until
    /// the deadline, then the error.
    fn watch<R>(&mut self, cx: &mut Context<'_>, got: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        match got {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let sleep = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client read nothing of its answer in time",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let got = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(cx, got)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let got = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(cx, got)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let got = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(cx, got)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let got = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.watch(cx, got)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_write_nobody_reads_fails_after_the_limit() {
        // A pipe of 64 bytes that nobody reads: the second write waits, then times out.
        let (a, _b) = tokio::io::duplex(64);
        let mut w = WriteDeadline::new(a, Duration::from_secs(5));
        w.write_all(&[0u8; 64]).await.unwrap();
        let t = tokio::time::Instant::now();
        let err = w.write_all(&[0u8; 64]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(t.elapsed() >= Duration::from_secs(5));
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_slow_reader_that_keeps_reading_is_not_cut_off() {
        // Each write waits 3 s for the reader, less than the limit, ten times over.
        let (a, mut b) = tokio::io::duplex(64);
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 64];
            let mut got = 0;
            while got < 64 * 11 {
                tokio::time::sleep(Duration::from_secs(3)).await;
                got += tokio::io::AsyncReadExt::read(&mut b, &mut buf)
                    .await
                    .unwrap();
            }
            got
        });
        let mut w = WriteDeadline::new(a, Duration::from_secs(5));
        for _ in 0..11 {
            w.write_all(&[1u8; 64]).await.unwrap();
        }
        assert_eq!(reader.await.unwrap(), 64 * 11);
    }
}
