/*
 * Never installed, never run: a program that links every function uclampctl
 * takes from the libraries it opens with dlopen (the lists in uclamp/dlib.h).
 * dpkg-shlibdeps reads only what a binary links; given this one too
 * (debian/rules), it names their packages in the .deb's Depends, at the
 * versions those functions need. libsystemd is left out: the package only
 * recommends it.
 */
#include <libcgroup.h>
#include <libsmartcols.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "uclamp/dlib.h"

#define REF(f) (void (*)(void))f,
void (*const uc_dlopen_deps[])(void) = { UC_SCOLS_FNS(REF) UC_CGROUP_FNS(REF) UC_NL_FNS(REF) };

int main(void)
{
	return 0;
}
