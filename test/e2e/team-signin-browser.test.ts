// The team's way in, in a real browser: an owner invites someone by email, the invitee follows the link
// from the outbox, sets a password and is in; turns on two-factor sign-in (the code computed here with
// otpauth), signs out and back in with password + code; a recovery code works once; a password reset link
// works once and ends the other sessions. Hostile input: a script in a name never runs, wrong, used and
// expired links are pages that say so, and no token reaches the server's log. With SCREENSHOTS=1 it
// writes docs/screenshots/team-invite.png, two-factor.png and sessions.png (1366 and 390 px).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SHOTS, browserSkip, createOwner, launchChromium } from '../support/browser.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

declare const window: any;

const HOSTILE_NAME = `Grace <img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>`;

describe('invitations, two-factor sign-in and password reset (Chromium)', { skip: browserSkip() }, () => {
  let s: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  const log: string[] = [];
  const contexts: BrowserContext[] = [];
  before(async () => {
    [s, browser] = await Promise.all([
      startServer({ after: (fn: () => Promise<void>) => void (stop = fn) }, { LOG_LEVEL: 'info' }, { log }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await stop?.();
  });
  async function newPage(width = 1366): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return page;
  }
  /** the link of the newest mail to `to` whose subject matches, from the outbox */
  const linkIn = (to: string, subject: RegExp) =>
    until(`a mail to ${to}`, async () => {
      const rows = await s.db
        .selectFrom('outbox')
        .select(['subject', 'text', 'from_addr'])
        .where('to_addr', '=', to)
        .orderBy('created_at', 'desc')
        .execute();
      const m = rows.find((r) => subject.test(r.subject));
      return m && { link: /https?:\/\/\S+#token=\S+/.exec(m.text ?? '')![0], from: m.from_addr };
    });
  const tokenOf = (link: string) => new URL(link).hash.slice('#token='.length);
  async function signIn(page: Page, email: string, password: string, code?: string) {
    await page.goto(s.url + '/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    if (code === undefined) return;
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
  }
  const overview = (page: Page) => page.getByRole('heading', { name: 'Overview' }).waitFor();
  async function signOut(page: Page) {
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  }

  test('invite → accept → TOTP → sign in with a code; recovery code once; reset link once', async () => {
    const owner = await newPage();
    await createOwner(owner, s);

    // ---- the owner invites Grace (a script in her name) and Linus
    await owner.getByRole('link', { name: 'Settings' }).click();
    const team = owner.locator('.card', { has: owner.getByRole('heading', { name: 'Team', exact: true }) });
    await team.getByLabel('Email to invite').fill('not an address <script>');
    await team.getByRole('button', { name: 'Send invitation' }).click();
    await team.getByText('A valid email address is required').waitFor();
    await team.getByLabel('Email to invite').fill('grace@acme.test');
    await team.getByLabel('Their name').fill(HOSTILE_NAME);
    await team.getByLabel('Role', { exact: true }).selectOption('editor');
    await team.getByRole('button', { name: 'Send invitation' }).click();
    await team.getByText('Invitation sent to grace@acme.test.').waitFor();
    await team
      .getByRole('row', { name: /grace@acme\.test/ })
      .getByText(HOSTILE_NAME, { exact: false })
      .waitFor();
    await team.getByLabel('Email to invite').fill('linus@acme.test');
    await team.getByRole('button', { name: 'Send invitation' }).click();
    await team.getByText('Invitation sent to linus@acme.test.').waitFor();
    if (SHOTS) {
      await team.scrollIntoViewIfNeeded();
      await team.screenshot({ path: join(SHOTS, 'team-invite.png') });
    }

    const invitation = await linkIn('grace@acme.test', /^Join Acme/);
    assert.equal(invitation.from, s.config.MAIL_FROM, 'the instance sender');
    const stored = await s.db.selectFrom('invitations').select('token_hash').execute();
    assert.ok(
      stored.every((r) => r.token_hash !== tokenOf(invitation.link)),
      'only the hash is stored',
    );

    // Linus's invitation has expired; a made-up token is no invitation
    await s.db
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', 'linus@acme.test')
      .execute();
    const stranger = await newPage();
    await stranger.goto((await linkIn('linus@acme.test', /^Join Acme/)).link);
    await stranger.getByText('This invitation has expired').waitFor();
    await stranger.goto(s.url + '/app/invitation#token=made-up');
    await stranger.getByText('This invitation link is not valid').waitFor();

    // ---- Grace accepts: sets her password and is in
    const grace = await newPage();
    await grace.goto(invitation.link);
    await grace.getByText('You are invited to Acme as editor').waitFor();
    await grace.getByLabel('Choose a password').fill('short');
    await grace.getByRole('button', { name: 'Accept and sign in' }).click();
    await grace.getByText('Password must be at least 8 characters').waitFor();
    await grace.getByLabel('Choose a password').fill('grace hopper 1906');
    await grace.getByRole('button', { name: 'Accept and sign in' }).click();
    await overview(grace);
    await grace.goto(invitation.link); // the link works once
    await grace.getByText('This invitation link is not valid').waitFor();

    // ---- two-factor enrolment from her own page
    await grace.goto(s.url + '/app/account');
    await grace.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    await grace.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await grace.locator('code.secret-text').first().textContent())!.trim();
    const app = new TOTP({ secret: Secret.fromBase32(secret), period: 30, digits: 6 });
    await grace.getByLabel('Code from the app').fill(app.generate().startsWith('0') ? '999999' : '000000');
    await grace.getByRole('button', { name: 'Turn on' }).click();
    await grace.getByText('That code is not right').waitFor();
    if (SHOTS)
      await grace
        .locator('.card')
        .first()
        .screenshot({ path: join(SHOTS, 'two-factor.png') });
    const enrolCode = app.generate();
    await grace.getByLabel('Code from the app').fill(enrolCode);
    await grace.getByRole('button', { name: 'Turn on' }).click();
    await grace.getByRole('list', { name: 'Recovery codes' }).locator('li').first().waitFor();
    const codes = (await grace.getByRole('list', { name: 'Recovery codes' }).locator('li').allTextContents()).map((c) =>
      c.trim(),
    );
    assert.equal(codes.length, 10);
    await grace.getByRole('button', { name: 'I have saved them' }).click();
    await grace.getByText('10 recovery codes left').waitFor();
    const sealed = await s.db
      .selectFrom('users')
      .select('totp_secret')
      .where('email', '=', 'grace@acme.test')
      .executeTakeFirstOrThrow();
    assert.ok(sealed.totp_secret?.startsWith('v1:') && !sealed.totp_secret.includes(secret), 'sealed at rest');

    // ---- sign out, sign in with password + code; the enrolment's code cannot be replayed
    await signOut(grace);
    await signIn(grace, 'grace@acme.test', 'grace hopper 1906', enrolCode);
    await grace.getByText('That code is not right, or was used already').waitFor();
    await grace.getByLabel('Code').fill(app.generate({ timestamp: Date.now() + 30_000 }));
    await grace.getByRole('button', { name: 'Verify and sign in' }).click();
    await overview(grace);
    assert.equal(await grace.evaluate(() => window.__pwned), undefined);

    // ---- a recovery code works once
    await signOut(grace);
    await signIn(grace, 'grace@acme.test', 'grace hopper 1906', codes[0]!);
    await overview(grace);
    await signOut(grace);
    await signIn(grace, 'grace@acme.test', 'grace hopper 1906', codes[0]!);
    await grace.getByText('That code is not right, or was used already').waitFor();
    await grace.getByLabel('Code').fill(codes[1]!.toUpperCase());
    await grace.getByRole('button', { name: 'Verify and sign in' }).click();
    await overview(grace);

    // ---- her sessions: a second one, listed, then signed out from here
    const laptop = await newPage();
    await signIn(laptop, 'grace@acme.test', 'grace hopper 1906', codes[2]!);
    await overview(laptop);
    await grace.goto(s.url + '/app/account');
    const sessions = grace.getByRole('table', { name: 'Sessions' });
    await sessions.getByText('This session').waitFor();
    assert.equal(await sessions.locator('tbody tr').count(), 2);
    await sessions
      .getByText(/Chrome on Linux/)
      .first()
      .waitFor();
    if (SHOTS) {
      await grace
        .locator('.card', { has: grace.getByRole('heading', { name: 'Sessions' }) })
        .screenshot({ path: join(SHOTS, 'sessions.png') });
      const phone = await newPage(390);
      await signIn(phone, 'grace@acme.test', 'grace hopper 1906', codes[3]!);
      await overview(phone);
      await phone.goto(s.url + '/app/account');
      await phone.getByRole('table', { name: 'Sessions' }).getByText('This session').waitFor();
      await phone.screenshot({ path: join(SHOTS, 'account-phone.png'), fullPage: true });
      assert.ok((await phone.evaluate(() => window.document.documentElement.scrollWidth)) <= 390, 'fits a phone');
      await phone.goto(s.url + '/app/settings');
      await phone.getByRole('heading', { name: 'Team', exact: true }).waitFor();
      await phone.locator('.team').screenshot({ path: join(SHOTS, 'team-phone.png') });
    }
    await grace.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await grace.getByRole('alertdialog').getByRole('button', { name: 'Sign out' }).click();
    await grace.getByText(/other sessions? signed out/).waitFor();
    await laptop.reload();
    await laptop.getByRole('heading', { name: 'Sign in' }).waitFor();

    // ---- "Forgot password?": the same answer for an unknown address; the link works once and ends every session
    await laptop.getByRole('button', { name: 'Forgot password?' }).click();
    await laptop.getByLabel('Email').fill('nobody@acme.test');
    await laptop.getByRole('button', { name: 'Send the link' }).click();
    await laptop.getByText('If that address can sign in here').waitFor();
    await laptop.getByLabel('Email').fill('grace@acme.test');
    await laptop.getByRole('button', { name: 'Send the link' }).click();
    const reset = await linkIn('grace@acme.test', /^Reset your Mailgrove password/);
    await laptop.goto(reset.link);
    await laptop.getByLabel('New password').fill('amazing grace 1992');
    await laptop.getByRole('button', { name: 'Set the new password' }).click();
    await laptop.getByText('Your password is changed').waitFor();
    await grace.reload();
    await grace.getByRole('heading', { name: 'Sign in' }).waitFor();
    await stranger.goto(reset.link); // the link works once
    await stranger.getByText('This password reset link is not valid').waitFor();
    await signIn(laptop, 'grace@acme.test', 'amazing grace 1992', codes[4]!);
    await overview(laptop);

    // nothing injected ran anywhere; no token, and no internal error, in the server's log
    for (const p of [owner, grace, laptop, stranger]) assert.equal(await p.evaluate(() => window.__pwned), undefined);
    const tokens = [tokenOf(invitation.link), tokenOf(reset.link), secret, ...codes];
    const leaked = log.filter((line) => tokens.some((t) => line.includes(t)));
    assert.deepEqual(leaked, [], 'tokens in the log');
    assert.deepEqual(
      log.filter((l) => /"level":50/.test(l)),
      [],
      'errors in the log',
    );
  });
});
