#include <stdio.h>
#include <string.h>
#include <uvfs.h>

int main(void)
{
	struct uvfs *fs = uvfs_create(NULL);                 /* a tmpfs root */
	struct uvfs_proc *p = uvfs_proc_create(fs, 1000, 1000);
	int fd = uvfs_openat(p, AT_FDCWD, "/tmp-file", O_CREAT | O_RDWR, 0644);
	if (fd < 0) {                                        /* -errno */
		fprintf(stderr, "openat: %s\n", strerror(-fd));
		return 1;
	}
	uvfs_write(p, fd, "hello", 5);
	char buf[6] = "";
	ssize_t n = uvfs_pread(p, fd, buf, 5, 0);
	printf("read %zd bytes: %s\n", n, buf);
	uvfs_close(p, fd);
	uvfs_destroy(fs);
	return n == 5 && strcmp(buf, "hello") == 0 ? 0 : 1;
}
