// Settings → Sending domains in a real browser: a bad domain is shown next to its field; an added domain
// lists its four DNS records with copy buttons; once the test's DNS server publishes them, "Check DNS now"
// turns it Verified. The banner says links in mail point at a private address (PUBLIC_URL is loopback).
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SHOTS, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';
import { startDnsServer } from '../support/dnsServer.ts';

const dns = await startDnsServer({ after });

describe('sending domains in Settings (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ env: { DNS_SERVERS: dns.server }, viewport: { width: 1280, height: 1000 } });

  test('add a domain, see its records, publish them, check: verified', async () => {
    const { s, page } = session;
    await createOwner(page, s);
    await page.getByText('Links in mail (unsubscribe, tracking, confirmation) point at a private address').waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Sending domains' });
    await section.getByText('No sending domain yet').waitFor();

    await section.getByLabel('Domain', { exact: true }).fill('not a domain');
    await section.getByRole('button', { name: 'Add domain' }).click();
    await section.getByText('domain must be a domain name such as news.example.com').first().waitFor();

    await section.getByLabel('Domain', { exact: true }).fill('News.Example.test');
    await section.getByRole('button', { name: 'Add domain' }).click();
    const card = section.getByRole('article', { name: 'Sending domain news.example.test' });
    await card.getByText('Pending', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Copy the dkim value' }).waitFor();

    const records = (await s.db.selectFrom('sending_domains').selectAll().executeTakeFirstOrThrow()) as {
      selector: string;
      public_key: string;
    };
    dns.set(`${records.selector}._domainkey.news.example.test`, 'TXT', [`v=DKIM1; k=rsa; p=${records.public_key}`]);
    dns.set('_dmarc.news.example.test', 'TXT', ['v=DMARC1; p=none; adkim=r; aspf=r']);
    await card.getByRole('button', { name: 'Check DNS now' }).click();
    await card.getByText('Verified', { exact: true }).waitFor();
    await card.getByText('No record at news.example.test', { exact: false }).waitFor();
    if (SHOTS) await section.screenshot({ path: join(SHOTS, 'sending-domains.png') });
  });
});
